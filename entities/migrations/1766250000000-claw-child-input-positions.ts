/**
 * The order of a child's queued inputs (plugins/children): a client may move
 * a steer or follow-up before the child's model takes it in, so the journal
 * keeps a position apart from the id (the order of arrival). Existing rows
 * keep their arrival order. Nullable only so the column can be added to a
 * filled table; every row written from here on has one.
 */
import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

export class ClawChildInputPositions1766250000000 implements MigrationInterface {
  name = 'ClawChildInputPositions1766250000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('claw_child_inputs', new TableColumn({ name: 'position', type: 'integer', isNullable: true }));
    await queryRunner.query('UPDATE claw_child_inputs SET position = id');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('claw_child_inputs', 'position');
  }
}
