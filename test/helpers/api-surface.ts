/**
 * The public API of the package's entry points as text, read with the TypeScript compiler API from the
 * source entry files the `exports` map builds: each exported name with its kind and signature (a
 * function's or constructor's parameters and result, a constant's type, an interface's or class's
 * public members, a type alias's definition). One line per name, sorted, so a change of surface is a
 * one-line diff in the snapshot.
 */
import { join } from 'node:path';
import ts from 'typescript';

/** The package's subpaths and the source file each one builds from. */
export const ENTRY_POINTS: Readonly<Record<string, string>> = {
  cronfence: 'lib/index.ts',
  'cronfence/runtime': 'lib/entries/runtime.ts',
  'cronfence/observability': 'lib/entries/observability.ts',
  'cronfence/sweeper': 'lib/entries/sweeper.ts',
  'cronfence/cdk': 'cdk/constructs/index.ts',
  'cronfence/testing': 'testing/index.ts',
  'cronfence/operate': 'operate/index.ts',
  'cronfence/ecs-task': 'lib/entries/ecs-task.ts',
  'cronfence/tracing': 'lib/entries/tracing.ts',
};

const FLAGS =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseFullyQualifiedType |
  ts.TypeFormatFlags.WriteArrowStyleSignature;

const PRINTER = ts.createPrinter({ removeComments: true });

/** The public members of an interface or class type, `name: type` each, sorted. */
function members(checker: ts.TypeChecker, type: ts.Type, at: ts.Node): string {
  const props = checker
    .getPropertiesOfType(type)
    .filter((p) => {
      const mods = p.valueDeclaration ? ts.getCombinedModifierFlags(p.valueDeclaration) : 0;
      return !(mods & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) && !p.name.startsWith('__');
    })
    .map(
      (p) =>
        `${p.name}${p.flags & ts.SymbolFlags.Optional ? '?' : ''}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(p, at), at, FLAGS)}`,
    )
    .sort();
  return `{ ${props.join('; ')} }`;
}

/** One line per exported name of `file`: `name (kind): signature`. */
function surfaceOf(checker: ts.TypeChecker, source: ts.SourceFile): string[] {
  const module = checker.getSymbolAtLocation(source);
  if (!module) return [];
  return checker
    .getExportsOfModule(module)
    .map((exported) => {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const decl = symbol.declarations?.[0] ?? source;
      const parts: string[] = [];
      if (symbol.flags & ts.SymbolFlags.Class) {
        const ctor = checker.getTypeOfSymbolAtLocation(symbol, decl);
        const sigs = ctor.getConstructSignatures().map((s) => checker.signatureToString(s, decl, FLAGS));
        parts.push(
          `class new ${sigs.join(' | ')} ${members(checker, checker.getDeclaredTypeOfSymbol(symbol), decl)}`,
        );
      } else if (symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable)) {
        const type = checker.getTypeOfSymbolAtLocation(symbol, decl);
        parts.push(
          `${symbol.flags & ts.SymbolFlags.Function ? 'function' : 'const'} ${checker.typeToString(type, decl, FLAGS)}`,
        );
      }
      if (symbol.flags & ts.SymbolFlags.Interface) {
        parts.push(`interface ${members(checker, checker.getDeclaredTypeOfSymbol(symbol), decl)}`);
      } else if (symbol.flags & ts.SymbolFlags.TypeAlias) {
        const alias = symbol.declarations?.find(ts.isTypeAliasDeclaration);
        const text = alias
          ? PRINTER.printNode(ts.EmitHint.Unspecified, alias.type, alias.getSourceFile())
          : '?';
        parts.push(`type ${text.replace(/\s+/g, ' ')}`);
      }
      return withoutPaths(`${exported.name}: ${parts.join(' & ') || 'unknown'}`);
    })
    .sort();
}

/**
 * The checker prints types it cannot name as `import("/abs/path/node_modules/pkg/file")`: keep the
 * package-relative part only, so the snapshot is the same in every checkout. A type of this package
 * (`import("/abs/checkout/lib/core/ports").FenceContext`, a member inherited from a class in another
 * file) is printed by its name, as in the file that declares the member.
 */
function withoutPaths(line: string): string {
  return line
    .replace(/import\("\/(?:(?!node_modules)[^"])*"\)\./g, '')
    .replace(/import\("[^"]*\/node_modules\//g, 'import("');
}

/** The API text of every entry point, from the repository at `root`. */
export function apiSurface(root: string): Record<string, string[]> {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => undefined,
    },
  );
  const files = Object.values(ENTRY_POINTS).map((f) => join(root, f));
  const program = ts.createProgram(files, { ...parsed?.options, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  return Object.fromEntries(
    Object.entries(ENTRY_POINTS).map(([entry, file]) => {
      const source = program.getSourceFile(join(root, file));
      if (!source) throw new Error(`api surface: ${file} is not in the program`);
      return [entry, surfaceOf(checker, source)];
    }),
  );
}
