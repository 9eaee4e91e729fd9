/**
 * A synthesized CloudFormation template "deployed" on paper: every resource gets a physical name
 * and ARN in one fixed account and region, intrinsics (Ref, Fn::GetAtt, Fn::Join, Fn::Sub,
 * Fn::Select, Fn::Split, pseudo parameters) are resolved, and each role's trust and permission
 * policies are collected — the inputs an IAM evaluator needs.
 */

/** The account and region the template is resolved in (deliberately not us-east-1). */
export const ACCOUNT = '111122223333';
export const REGION = 'eu-central-1';

type Json = unknown;
/** One CloudFormation resource. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, Json>;
  readonly Metadata?: Record<string, Json>;
}
/** A template as synthesized. */
export interface CfnTemplate {
  readonly Resources: Record<string, CfnResource>;
}
/** An IAM policy document (resolved). */
export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: Record<string, Json>[];
}
/** A role with its resolved policies. */
export interface ResolvedRole {
  readonly logicalId: string;
  readonly arn: string;
  readonly trust: PolicyDocument;
  readonly policies: readonly { readonly name: string; readonly policy: PolicyDocument }[];
}

/** The template with physical names: resolve any value, and look roles and resources up. */
export class ResolvedTemplate {
  readonly roles = new Map<string, ResolvedRole>();

  constructor(
    readonly template: CfnTemplate,
    /** Prefix of physical table names (unique per test run). */
    readonly prefix: string,
  ) {
    for (const [id, r] of Object.entries(template.Resources)) {
      if (r.Type !== 'AWS::IAM::Role') continue;
      const inline =
        (r.Properties?.Policies as { PolicyName: string; PolicyDocument: Json }[] | undefined) ?? [];
      if (r.Properties?.ManagedPolicyArns) throw new Error(`${id}: managed policies are not evaluated`);
      this.roles.set(id, {
        logicalId: id,
        arn: this.attribute(id, 'Arn'),
        trust: this.resolve(r.Properties?.AssumeRolePolicyDocument) as PolicyDocument,
        policies: inline.map((p) => ({
          name: p.PolicyName,
          policy: this.resolve(p.PolicyDocument) as PolicyDocument,
        })),
      });
    }
    for (const [id, r] of Object.entries(template.Resources)) {
      if (r.Type !== 'AWS::IAM::Policy') continue;
      const doc = this.resolve(r.Properties?.PolicyDocument) as PolicyDocument;
      for (const ref of (r.Properties?.Roles ?? []) as { Ref: string }[]) {
        const role = this.roles.get(ref.Ref);
        if (!role) throw new Error(`${id}: role ${ref.Ref} not in the template`);
        (role.policies as { name: string; policy: PolicyDocument }[]).push({ name: id, policy: doc });
      }
    }
  }

  /** Resources of a type, by logical id. */
  ofType(type: string): [string, CfnResource][] {
    return Object.entries(this.template.Resources).filter(([, r]) => r.Type === type);
  }

  /** The resource of a logical id. @throws when absent */
  resource(id: string): CfnResource {
    const r = this.template.Resources[id];
    if (!r) throw new Error(`no resource ${id}`);
    return r;
  }

  /** What `Ref` returns for a resource (its physical name, or ARN/URL where CloudFormation says so). */
  ref(id: string): string {
    switch (id) {
      case 'AWS::Region':
        return REGION;
      case 'AWS::AccountId':
        return ACCOUNT;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return 'Cronfence';
    }
    const r = this.resource(id);
    const p = r.Properties ?? {};
    switch (r.Type) {
      case 'AWS::DynamoDB::Table':
        return `${this.prefix}-${id}`;
      case 'AWS::Lambda::Function':
        return (this.resolve(p.FunctionName) as string | undefined) ?? id;
      case 'AWS::SQS::Queue':
        return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${id}`;
      case 'AWS::SNS::Topic':
        return `arn:aws:sns:${REGION}:${ACCOUNT}:${id}`;
      case 'AWS::Scheduler::ScheduleGroup':
        return (this.resolve(p.Name) as string | undefined) ?? id;
      case 'AWS::ECS::TaskDefinition':
        return `arn:aws:ecs:${REGION}:${ACCOUNT}:task-definition/${String(this.resolve(p.Family) ?? id)}:1`;
      default:
        return id;
    }
  }

  /** What `Fn::GetAtt [id, attr]` returns. */
  attribute(id: string, attr: string): string {
    const r = this.resource(id);
    const name = this.ref(id);
    if (attr === 'Arn') {
      switch (r.Type) {
        case 'AWS::DynamoDB::Table':
          return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`;
        case 'AWS::Lambda::Function':
          return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`;
        case 'AWS::SQS::Queue':
          return `arn:aws:sqs:${REGION}:${ACCOUNT}:${id}`;
        case 'AWS::IAM::Role':
          return `arn:aws:iam::${ACCOUNT}:role/${id}`;
        case 'AWS::Scheduler::ScheduleGroup':
          return `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule-group/${name}`;
        case 'AWS::Logs::LogGroup':
          return `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${id}:*`;
        case 'AWS::ECS::Cluster':
          return `arn:aws:ecs:${REGION}:${ACCOUNT}:cluster/${name}`;
      }
    }
    if (attr === 'QueueName' && r.Type === 'AWS::SQS::Queue') return id;
    return `${id}.${attr}`;
  }

  /** Resolve intrinsics in any value. */
  resolve(value: Json): Json {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value === null || typeof value !== 'object') return value;
    const o = value as Record<string, Json>;
    const keys = Object.keys(o);
    if (keys.length === 1) {
      const [k] = keys as [string];
      const arg = o[k];
      switch (k) {
        case 'Ref':
          return this.ref(arg as string);
        case 'Fn::GetAtt': {
          const [id, attr] = Array.isArray(arg) ? (arg as string[]) : String(arg).split('.');
          return this.attribute(id as string, attr as string);
        }
        case 'Fn::Join': {
          const [sep, parts] = arg as [string, Json[]];
          return (this.resolve(parts) as Json[]).map(String).join(sep);
        }
        case 'Fn::Select': {
          const [i, list] = arg as [number, Json];
          return (this.resolve(list) as Json[])[Number(i)];
        }
        case 'Fn::Split': {
          const [sep, s] = arg as [string, Json];
          return String(this.resolve(s)).split(sep);
        }
        case 'Fn::Sub': {
          const [s, vars] = (Array.isArray(arg) ? arg : [arg, {}]) as [string, Record<string, Json>];
          return s.replace(/\$\{([^}]+)\}/g, (_m, name: string) => {
            if (vars[name] !== undefined) return String(this.resolve(vars[name]));
            const [id, attr] = name.split('.');
            return attr ? this.attribute(id as string, attr) : this.ref(id as string);
          });
        }
      }
    }
    return Object.fromEntries(keys.map((k) => [k, this.resolve(o[k])]));
  }

  /** The role (logical id) a resource property refers to through `Fn::GetAtt [role, Arn]`. */
  roleOf(value: Json): ResolvedRole {
    const arn = this.resolve(value);
    const role = [...this.roles.values()].find((r) => r.arn === arn);
    if (!role) throw new Error(`no role with ARN ${String(arn)}`);
    return role;
  }
}
