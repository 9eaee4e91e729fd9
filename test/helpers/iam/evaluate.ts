/**
 * Evaluate authorizations against the resolved template's role policies with a real IAM policy
 * evaluator (npm `@cloud-copilot/iam-simulate`: identity and resource policies, every condition
 * operator, ForAllValues set semantics), and list what the policies grant that no check used.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { IamCheck } from './requests.js';
import { ACCOUNT, type ResolvedTemplate } from './template.js';

/** A check and the evaluator's answer. */
export interface Verdict {
  readonly check: IamCheck;
  readonly result: string;
}

/** Evaluate each distinct check once. @throws when the evaluator rejects the input (a modelling error) */
export async function evaluate(t: ResolvedTemplate, checks: readonly IamCheck[]): Promise<Verdict[]> {
  const cache = new Map<string, Promise<string>>();
  const one = (c: IamCheck): Promise<string> => {
    const key = JSON.stringify([c.role, c.action, c.resource, c.context, c.assumedBy]);
    let p = cache.get(key);
    if (!p) {
      p = simulate(t, c);
      cache.set(key, p);
    }
    return p;
  };
  return Promise.all(checks.map(async (check) => ({ check, result: await one(check) })));
}

async function simulate(t: ResolvedTemplate, c: IamCheck): Promise<string> {
  const role = t.roles.get(c.role);
  if (!role) throw new Error(`${c.what}: no role ${c.role} in the template`);
  const response = await runSimulation(
    {
      identityPolicies: c.assumedBy ? [] : role.policies.map((p) => ({ name: p.name, policy: p.policy })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(c.assumedBy ? { resourcePolicy: role.trust } : {}),
      request: {
        principal: c.assumedBy ?? role.arn,
        action: c.action,
        resource: { resource: c.resource, accountId: ACCOUNT },
        contextVariables: { ...c.context },
      },
      // biome-ignore lint/suspicious/noExplicitAny: the simulator's input types are wider than we use
    } as any,
    {},
  );
  if (response.resultType === 'error') {
    throw new Error(`${c.what}: the IAM evaluator rejected the request: ${JSON.stringify(response.errors)}`);
  }
  return String(response.overallResult);
}

/** A grant: one action on one resource pattern (and one LeadingKeys pattern) of one statement. */
export interface Grant {
  readonly role: string;
  readonly action: string;
  readonly resource: string;
  readonly leadingKey?: string;
}

const list = (v: unknown): string[] =>
  v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)];
const glob = (pattern: string): RegExp =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);

/** Every Allow grant of the roles' permission policies, for the services the test records. */
export function grantsOf(t: ResolvedTemplate, services: readonly string[]): Grant[] {
  const grants: Grant[] = [];
  for (const role of t.roles.values()) {
    for (const { policy } of role.policies) {
      for (const s of policy.Statement) {
        if (s.Effect !== 'Allow') continue;
        const cond = s.Condition as Record<string, Record<string, unknown>> | undefined;
        const keys = list(cond?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']);
        for (const action of list(s.Action)) {
          if (!services.includes(action.split(':')[0] as string)) continue;
          for (const resource of list(s.Resource)) {
            if (keys.length === 0) grants.push({ role: role.logicalId, action, resource });
            for (const leadingKey of keys)
              grants.push({ role: role.logicalId, action, resource, leadingKey });
          }
        }
      }
    }
  }
  return grants;
}

/** The grants no allowed check used. */
export function unusedGrants(grants: readonly Grant[], verdicts: readonly Verdict[]): Grant[] {
  const allowed = verdicts.filter((v) => v.result === 'Allowed' && !v.check.assumedBy).map((v) => v.check);
  return grants.filter(
    (g) =>
      !allowed.some(
        (c) =>
          c.role === g.role &&
          glob(g.action).test(c.action) &&
          glob(g.resource).test(c.resource) &&
          (g.leadingKey === undefined ||
            list(c.context['dynamodb:LeadingKeys']).every((k) => glob(g.leadingKey as string).test(k))),
      ),
  );
}
