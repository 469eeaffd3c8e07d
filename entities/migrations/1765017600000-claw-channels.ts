/** The channels' state rows (entities/claw-channel-entities.ts), with the portable Table API. */
import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

export class ClawChannels1765017600000 implements MigrationInterface {
  name = 'ClawChannels1765017600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'claw_channel_state',
        columns: [
          { name: 'channel_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'type', type: 'varchar', length: '64' },
          { name: 'state', type: 'text' },
          { name: 'updated_at', type: 'bigint' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('claw_channel_state');
  }
}
