/**
 * The errors of bad input and bad configuration: an invocation event, a job definition, a schedule
 * expression, an argument, an environment setting. Each names the field and the value it refused.
 */
import { CronfenceError, ErrorCategory, ErrorCode } from './error-model.js';
import { showValue } from './show-value.js';

/** An invocation payload that is not a Scheduler or manual event; names the field and value. Category `input`. */
export class InvalidEventError extends CronfenceError {
  override readonly name = 'InvalidEventError';
  readonly field: string;
  readonly value: unknown;
  constructor(field: string, value: unknown, problem: string, options?: ErrorOptions) {
    super(
      ErrorCode.InvalidEvent,
      ErrorCategory.Input,
      `invalid event: field "${field}" = ${showValue(value)}: ${problem}`,
      options,
    );
    this.field = field;
    this.value = value;
  }
}

/** A job definition (or CLI argument) failed validation; names the field and value. Category `input`. */
export class InvalidJobDefinitionError extends CronfenceError {
  override readonly name = 'InvalidJobDefinitionError';
  readonly field: string;
  readonly value: unknown;
  constructor(field: string, value: unknown, problem: string, options?: ErrorOptions) {
    super(
      ErrorCode.InvalidJobDefinition,
      ErrorCategory.Input,
      `invalid job definition: "${field}" = ${showValue(value)}: ${problem}`,
      options,
    );
    this.field = field;
    this.value = value;
  }
}

/** An EventBridge Scheduler expression Scheduler itself would reject; names the part. Category `input`. */
export class InvalidScheduleError extends CronfenceError {
  override readonly name = 'InvalidScheduleError';
  readonly expression: string;
  readonly part: string;
  constructor(expression: string, part: string, problem: string, options?: ErrorOptions) {
    super(
      ErrorCode.InvalidSchedule,
      ErrorCategory.Input,
      `invalid schedule ${showValue(expression)}: ${part}: ${problem}`,
      options,
    );
    this.expression = expression;
    this.part = part;
  }
}

/** A CLI or API argument is invalid; names the argument and value. Category `input`. */
export class InvalidArgumentError extends CronfenceError {
  override readonly name = 'InvalidArgumentError';
  /** The argument's name: the API option (`slot`, `beforeStart`) or the setting (`CRONFENCE_TABLE`). */
  readonly argument: string;
  readonly value: unknown;
  /** What is wrong with the value (the message after the argument and value). */
  readonly problem: string;
  constructor(argument: string, value: unknown, problem: string, options?: ErrorOptions) {
    super(
      ErrorCode.InvalidArgument,
      ErrorCategory.Input,
      `invalid ${argument} ${showValue(value)}: ${problem}`,
      options,
    );
    this.argument = argument;
    this.value = value;
    this.problem = problem;
  }
}

/**
 * The function's environment is missing or misconfigures a setting (a table name, the sweeper's job
 * list): a deployment problem, not a job definition. Names the variable and the value. Category
 * `configuration`.
 */
export class ConfigurationError extends CronfenceError {
  override readonly name = 'ConfigurationError';
  readonly variable: string;
  readonly value: unknown;
  constructor(variable: string, value: unknown, problem: string, options?: ErrorOptions) {
    super(
      ErrorCode.Configuration,
      ErrorCategory.Configuration,
      `invalid configuration: ${variable} = ${showValue(value)}: ${problem}`,
      options,
    );
    this.variable = variable;
    this.value = value;
  }
}
