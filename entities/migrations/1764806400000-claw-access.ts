/**
 * The access scope of each group (issue 16): one row per group that ever
 * changed it; a group without a row has full access.
 */
import { Table, TableForeignKey, type MigrationInterface, type QueryRunner } from 'typeorm';

export class ClawAccess1764806400000 implements MigrationInterface {
  name = 'ClawAccess1764806400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'claw_access_scopes',
        columns: [
          { name: 'group_name', type: 'varchar', length: '64', isPrimary: true },
          { name: 'mode', type: 'varchar', length: '16' },
          { name: 'revision', type: 'integer' },
          { name: 'changed_at', type: 'bigint' },
        ],
        foreignKeys: [new TableForeignKey({ name: 'fk_claw_access_scopes_group', columnNames: ['group_name'], referencedTableName: 'claw_groups', referencedColumnNames: ['name'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('claw_access_scopes');
  }
}
