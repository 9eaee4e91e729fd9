/**
 * Create tables from their {@link TableSchema} (the same modules the CDK app reads) on DynamoDB Local
 * or any endpoint. Idempotent: an existing table is left as it is.
 */
import {
  CreateTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTableInput, type TableSchema } from '../../lib/store/schema.js';

/** Create each table (name from `names[schema.envVar]` or the schema's default) and wait until ACTIVE. */
export async function ensureTables(
  doc: DynamoDBDocumentClient,
  tables: readonly { schema: TableSchema; tableName: string }[],
): Promise<void> {
  await Promise.all(
    tables.map(async ({ schema, tableName }) => {
      try {
        await doc.send(new CreateTableCommand(createTableInput(schema, tableName)));
      } catch (err) {
        if (!(err instanceof ResourceInUseException)) throw err;
      }
      await waitUntilTableExists({ client: doc, maxWaitTime: 30, minDelay: 1 }, { TableName: tableName });
      if (schema.timeToLiveAttribute) {
        await doc
          .send(
            new UpdateTimeToLiveCommand({
              TableName: tableName,
              TimeToLiveSpecification: { AttributeName: schema.timeToLiveAttribute, Enabled: true },
            }),
          )
          .catch(() => undefined); // already enabled
      }
    }),
  );
}
