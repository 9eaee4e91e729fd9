import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { buildSync } from 'esbuild';
import { ESBUILD_TARGET } from './defaults.js';
import { CronfenceValidationError } from './errors.js';
import { JOB_BUNDLING } from './job-function.js';

/** The container's working directory: the two bundles and the Dockerfile. */
export const ECS_APP_DIR = '/app';
/** The task entry bundle in the image (`node /app/ecs-task.mjs`). */
export const ECS_TASK_FILE = 'ecs-task.mjs';
/** The job module bundle in the image, named by `CRONFENCE_JOBS_MODULE`. */
export const ECS_JOBS_FILE = 'jobs.mjs';
/**
 * The image the job's container is built from: Node 24 (the Lambda runtime's major), slim Debian, from
 * ECR Public's Docker official images mirror (no Docker Hub pull limits on the deploying machine).
 */
export const DEFAULT_ECS_BASE_IMAGE = 'public.ecr.aws/docker/library/node:24-slim';

/**
 * cronfence's own task entry (`cronfence/ecs-task`, lib/entries/ecs-task.ts): the TypeScript source
 * when running from this repository, the compiled module when installed from the package.
 */
export const DEFAULT_ECS_TASK_ENTRY = packagedTaskEntry();

function packagedTaskEntry(): string {
  const source = fileURLToPath(new URL('../../lib/entries/ecs-task.ts', import.meta.url));
  return existsSync(source)
    ? source
    : fileURLToPath(new URL('../../lib/entries/ecs-task.js', import.meta.url));
}

/** Options of {@link stageEcsImage}. */
export interface EcsImageOptions {
  /** The job's handler file (exports `handler`), absolute or relative to `projectRoot`. */
  readonly entry: string;
  /** Project root: node_modules and tsconfig.json. */
  readonly projectRoot: string;
  /** The task entry to bundle. @default DEFAULT_ECS_TASK_ENTRY */
  readonly taskEntry?: string;
  /** Base image of the Dockerfile. @default DEFAULT_ECS_BASE_IMAGE */
  readonly baseImage?: string;
  /**
   * The directory to stage into (emptied first): a fixed place under the cloud assembly, so the
   * bundles' source maps, and so the asset hash, are the same at every synth of unchanged code.
   */
  readonly directory: string;
}

/** What {@link stageEcsImage} wrote: the directory the image asset is built from. */
export interface StagedImage {
  readonly directory: string;
  readonly image: ContainerImage;
}

/**
 * Stage the job's container image without Docker: esbuild bundles the task entry and a jobs module
 * (the handler file re-exported as the registry `jobs`/`handlers` shape) into `directory` with a
 * Dockerfile that only copies them onto {@link DEFAULT_ECS_BASE_IMAGE}; `ContainerImage.fromAsset`
 * copies that directory into the cloud assembly at synth (a DockerImageAsset is built by the CDK CLI at
 * deploy time, not at synth). ARM64 (Graviton, as the Lambda functions). The bundles are built as the
 * Lambda bundles are ({@link JOB_BUNDLING}): minified ESM with source maps and the SDK inside, so the
 * container runs the code the tests ran and the image needs no `npm ci`.
 * @throws CronfenceValidationError naming the file when the handler file or the task entry does not exist, or esbuild fails.
 */
export function stageEcsImage(options: EcsImageOptions): StagedImage {
  const entry = isAbsolute(options.entry) ? options.entry : join(options.projectRoot, options.entry);
  const taskEntry = options.taskEntry ?? DEFAULT_ECS_TASK_ENTRY;
  for (const [what, file] of [
    ['the job entry', entry],
    ['the ECS task entry', taskEntry],
  ] as const) {
    if (!existsSync(file)) throw new CronfenceValidationError(`${what} ${file} does not exist`);
  }
  const { directory } = options;
  rmSync(directory, { recursive: true, force: true });
  const wrapperDir = join(directory, '.src');
  mkdirSync(wrapperDir, { recursive: true });
  const wrapper = join(wrapperDir, 'jobs.ts');
  const spec = relative(wrapperDir, entry).split('\\').join('/');
  writeFileSync(
    wrapper,
    [
      `import { handler } from ${JSON.stringify(spec.startsWith('.') ? spec : `./${spec}`)};`,
      'export { handler };',
      `export const jobs = [{ handler, definition: handler.job, entry: ${JSON.stringify(options.entry)} }];`,
      'export const handlers = { [handler.job.name]: handler };',
      '',
    ].join('\n'),
  );
  const tsconfig = join(options.projectRoot, 'tsconfig.json');
  for (const [input, output] of [
    [taskEntry, ECS_TASK_FILE],
    [wrapper, ECS_JOBS_FILE],
  ] as const) {
    buildSync({
      entryPoints: [input],
      outfile: join(directory, output),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: ESBUILD_TARGET,
      minify: true,
      sourcemap: true,
      sourcesContent: false,
      mainFields: [...(JOB_BUNDLING.mainFields ?? [])],
      banner: { js: JOB_BUNDLING.banner ?? '' },
      absWorkingDir: options.projectRoot,
      nodePaths: [join(options.projectRoot, 'node_modules')],
      ...(existsSync(tsconfig) ? { tsconfig } : {}),
      logLevel: 'silent',
    });
  }
  writeFileSync(
    join(directory, 'Dockerfile'),
    [
      `FROM --platform=linux/arm64 ${options.baseImage ?? DEFAULT_ECS_BASE_IMAGE}`,
      `WORKDIR ${ECS_APP_DIR}`,
      `COPY ${ECS_TASK_FILE} ${ECS_TASK_FILE}.map ${ECS_JOBS_FILE} ${ECS_JOBS_FILE}.map ./`,
      'USER node',
      `CMD ["node", "--enable-source-maps", "${ECS_TASK_FILE}"]`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(directory, '.dockerignore'), '.src\n');
  return {
    directory,
    image: ContainerImage.fromAsset(directory, { platform: Platform.LINUX_ARM64, exclude: ['.src'] }),
  };
}
