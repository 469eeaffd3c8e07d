/**
 * Turn-scoped skill picks of claw sessions (issue 16, skills per session):
 * one row per session with skills waiting for its next run.
 */
import { Table, TableForeignKey, type MigrationInterface, type QueryRunner } from 'typeorm';

export class ClawTurnSkills1765180800000 implements MigrationInterface {
  name = 'ClawTurnSkills1765180800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'claw_turn_skills',
        columns: [
          { name: 'session_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'slugs', type: 'text' },
          { name: 'loaded_at', type: 'bigint' },
        ],
        foreignKeys: [
          new TableForeignKey({ name: 'fk_claw_turn_skills_session', columnNames: ['session_id'], referencedTableName: 'claw_sessions', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('claw_turn_skills');
  }
}
