/**
 * A child's queue (plugins/children): a client may move a steer or
 * follow-up before the child's model takes it in, so the journal keeps a
 * position apart from the id (the order of arrival; existing rows keep it);
 * and a child's task and inputs may carry images, kept with them (as JSON
 * image parts, with their count for listings that do not read them).
 * Nullable only so the columns can be added to filled tables.
 */
import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

export class ClawChildQueue1766250000000 implements MigrationInterface {
  name = 'ClawChildQueue1766250000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('claw_child_inputs', [
      new TableColumn({ name: 'position', type: 'integer', isNullable: true }),
      new TableColumn({ name: 'images', type: 'text', isNullable: true }),
      new TableColumn({ name: 'image_count', type: 'integer', isNullable: true }),
    ]);
    await queryRunner.query('UPDATE claw_child_inputs SET position = id');
    await queryRunner.addColumns('claw_children', [
      new TableColumn({ name: 'task_images', type: 'text', isNullable: true }),
      new TableColumn({ name: 'task_image_count', type: 'integer', isNullable: true }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumns('claw_children', ['task_images', 'task_image_count']);
    await queryRunner.dropColumns('claw_child_inputs', ['position', 'images', 'image_count']);
  }
}
