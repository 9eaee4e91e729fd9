import type { Environment } from 'aws-cdk-lib';
import { CronfenceValidationError } from './constructs/errors.js';

/** The variables that pin the stack to one account and region (both or neither). */
export const PIN_ENV = { account: 'CRONFENCE_ACCOUNT', region: 'CRONFENCE_REGION' } as const;

/**
 * The environment the user pinned on purpose, or `undefined` for an environment-agnostic stack
 * (region and account from the `AWS::Region` / `AWS::AccountId` pseudo parameters). The CDK CLI's
 * own `CDK_DEFAULT_ACCOUNT` / `CDK_DEFAULT_REGION` are ignored: the CLI sets a region (us-east-1)
 * even when none is configured, and a literal region in a trust policy denies Scheduler everywhere else.
 * @throws CronfenceValidationError naming the variable when only one of the two is set, or the account is not 12 digits.
 */
export function pinnedEnvironment(
  vars: Readonly<Record<string, string | undefined>>,
): Environment | undefined {
  const account = vars[PIN_ENV.account];
  const region = vars[PIN_ENV.region];
  if (account === undefined && region === undefined) return undefined;
  if (!account || !region) {
    const missing = account ? PIN_ENV.region : PIN_ENV.account;
    throw new CronfenceValidationError(
      `${missing} is not set: pin both ${PIN_ENV.account} and ${PIN_ENV.region}, or neither (environment-agnostic)`,
    );
  }
  if (!/^\d{12}$/.test(account)) {
    throw new CronfenceValidationError(
      `${PIN_ENV.account} = "${account}": must be a 12-digit AWS account id`,
    );
  }
  return { account, region };
}
