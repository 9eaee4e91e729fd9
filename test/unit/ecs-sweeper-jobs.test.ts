/** unit: the sweeper's `CRONFENCE_JOBS` entry of an ECS job (`ecs`: where RunTask starts its catch-ups). */
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../lib/errors.js';
import { parseSweeperJobs } from '../../lib/runtime/sweeper-handler.js';

const ecs = {
  cluster: 'arn:aws:ecs:eu-central-1:123456789012:cluster/c',
  taskDefinition: 'arn:aws:ecs:eu-central-1:123456789012:task-definition/CronfenceTest-export:3',
  subnets: ['subnet-0a1b2c3d4e5f60718'],
  securityGroups: ['sg-0123456789abcdef0'],
  assignPublicIp: false,
};

describe('an ECS entry of CRONFENCE_JOBS', () => {
  it('is read with its placement', () => {
    expect(parseSweeperJobs(JSON.stringify([{ name: 'export', ecs: { ...ecs, spot: true } }]))).toEqual([
      { name: 'export', ecs: { ...ecs, spot: true } },
    ]);
  });

  it.each([
    [{ ...ecs, subnets: [] }, 'CRONFENCE_JOBS[0]["ecs"]["subnets"] = []: must name at least one subnet'],
    [
      { ...ecs, assignPublicIp: 'yes' },
      'CRONFENCE_JOBS[0]["ecs"]["assignPublicIp"] = "yes": must be true or false',
    ],
    [{ ...ecs, taskDefinition: '' }, 'CRONFENCE_JOBS[0]["ecs"]["taskDefinition"] = "": must not be empty'],
  ])('refuses %j with a ConfigurationError naming the field', (bad, message) => {
    let caught: unknown;
    try {
      parseSweeperJobs(JSON.stringify([{ name: 'export', ecs: bad }]));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigurationError);
    expect((caught as Error).message).toBe(`invalid configuration: ${message}`);
  });
});
