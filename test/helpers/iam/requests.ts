/**
 * How AWS authorizes each recorded request: the IAM action(s), the resource ARN and the request
 * context (Service Authorization Reference, DynamoDB and Lambda). A TransactWriteItems is authorized
 * per item — ConditionCheckItem, PutItem, UpdateItem, DeleteItem with `dynamodb:EnclosingOperation`
 * = `TransactWriteItems` — and every DynamoDB item action carries `dynamodb:LeadingKeys` (the
 * partition key value). Operations a function has no business sending are an error, not a pass.
 */

import type { RecordedRequest } from './recorder.js';
import { ACCOUNT, REGION } from './template.js';

/** One authorization AWS performs. */
export interface IamCheck {
  /** Role logical id. */
  readonly role: string;
  readonly action: string;
  readonly resource: string;
  readonly context: Readonly<Record<string, string | string[]>>;
  /** Evaluate the role's TRUST policy for this service principal (sts:AssumeRole). */
  readonly assumedBy?: string;
  /** Human-readable origin (`bundle: daily-report PutItem`, `negative control: ...`). */
  readonly what: string;
}

/** What the mapping needs to know about tables. */
export interface TableLookup {
  /** The table's ARN in the resolved template, from the name the request used. */
  arnOf(tableName: string): string;
  /** The partition key attribute of that table. */
  partitionKeyOf(tableName: string): string;
}

type Marshalled = Record<string, Record<string, unknown>>;

function leadingKey(tables: TableLookup, table: string, item: Marshalled | undefined, what: string): string {
  const pk = tables.partitionKeyOf(table);
  const value = item?.[pk];
  const s = value?.S ?? value?.N;
  if (s === undefined) throw new Error(`${what}: no partition key ${pk} in ${JSON.stringify(item)}`);
  return String(s);
}

/** The partition key value of a Query: `<pk> = :v` in its KeyConditionExpression. */
function queryKey(tables: TableLookup, input: Record<string, unknown>, what: string): string {
  const table = String(input.TableName);
  const pk = tables.partitionKeyOf(table);
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Marshalled;
  for (const m of String(input.KeyConditionExpression).matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    const name = names[m[1] as string] ?? m[1];
    if (name === pk) return leadingKey(tables, table, { [pk]: values[m[2] as string] ?? {} }, what);
  }
  throw new Error(`${what}: no partition key condition in ${String(input.KeyConditionExpression)}`);
}

const ITEM_ACTION: Record<string, string> = {
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
};

/** The authorizations one recorded request needs. @throws for an operation no function should send */
export function checksOf(r: RecordedRequest, tables: TableLookup): IamCheck[] {
  const what = `${r.source}: ${r.operation}`;
  const base = { role: r.role, what };
  const input = r.input;
  if (r.service === 'lambda') {
    if (r.operation !== 'Invoke') throw new Error(`${what}: unexpected Lambda operation`);
    const name = String(input.FunctionName);
    const arn = name.startsWith('arn:') ? name : `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`;
    return [{ ...base, action: 'lambda:InvokeFunction', resource: arn, context: {} }];
  }
  switch (r.operation) {
    case 'GetItem':
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem': {
      const table = String(input.TableName);
      const item = (input.Key ?? input.Item) as Marshalled;
      return [
        {
          ...base,
          action: `dynamodb:${r.operation}`,
          resource: tables.arnOf(table),
          context: { 'dynamodb:LeadingKeys': [leadingKey(tables, table, item, what)] },
        },
      ];
    }
    case 'Query': {
      const table = String(input.TableName);
      const arn = tables.arnOf(table);
      return [
        {
          ...base,
          action: 'dynamodb:Query',
          resource: input.IndexName ? `${arn}/index/${String(input.IndexName)}` : arn,
          context: { 'dynamodb:LeadingKeys': [queryKey(tables, input, what)] },
        },
      ];
    }
    case 'TransactWriteItems':
      return (input.TransactItems as Record<string, Record<string, unknown>>[]).map((entry) => {
        const [kind, item] = Object.entries(entry)[0] as [string, Record<string, unknown>];
        const action = ITEM_ACTION[kind];
        if (!action) throw new Error(`${what}: unknown transaction item ${kind}`);
        const table = String(item.TableName);
        return {
          ...base,
          what: `${what} > ${kind}`,
          action,
          resource: tables.arnOf(table),
          context: {
            'dynamodb:LeadingKeys': [leadingKey(tables, table, (item.Key ?? item.Item) as Marshalled, what)],
            'dynamodb:EnclosingOperation': 'TransactWriteItems',
          },
        };
      });
    default:
      throw new Error(`${what}: a function sent ${r.operation}, which the IAM test does not model`);
  }
}
