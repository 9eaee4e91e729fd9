/**
 * The error every cronfence construct throws at synth: a `CronfenceError` (category `configuration`:
 * the app's props or environment are wrong; fixed by changing the app, never by a retry) that names
 * the construct path it is about, as aws-cdk's `ValidationError` does.
 */
import type { IConstruct } from 'constructs';
import { CronfenceError, ErrorCategory, ErrorCode } from '../../lib/core/error-model.js';

/**
 * A construct's props, the app's context or its environment are invalid; `constructPath` is the path
 * of the construct concerned (`MyJobs/Jobs/daily-report`), `undefined` for an app-level setting read
 * before any construct exists (an environment variable, a context value, the job list). The message
 * reads `cronfence: <problem>`; the problem names the job or the path where that is what a reader looks for.
 * @example throw new CronfenceValidationError(`${this.node.path}: retryAttempts = 200: must be 0-185`, this);
 */
export class CronfenceValidationError extends CronfenceError {
  override readonly name = 'CronfenceValidationError';
  /** The path of the construct the error is about; `undefined` for an app-level setting. */
  readonly constructPath: string | undefined;
  constructor(problem: string, scope?: IConstruct, options?: ErrorOptions) {
    super(ErrorCode.InvalidConstruct, ErrorCategory.Configuration, `cronfence: ${problem}`, options);
    this.constructPath = scope?.node.path;
  }
}
