// The repository rule is part of the build (issue 31): eslint.config.mjs refuses `typeorm` outside repositories,
// entities, migrations and the database plumbing. Lints source text under chosen paths with the project's own
// configuration (only that rule, so no type information is needed), in a child process: ESLint loads its flat
// configuration as an ES module, which Jest's CommonJS runtime cannot.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

const LINT = `
import { ESLint } from 'eslint';
const { files } = JSON.parse(process.argv[1]);
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
});
const out = {};
for (const [filePath, text] of Object.entries(files)) {
  const [result] = await eslint.lintText(text, { filePath });
  out[filePath] = result.messages.map((message) => message.ruleId);
}
process.stdout.write(JSON.stringify(out));
`;

function lint(files: Record<string, string>): Record<string, string[]> {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', LINT, JSON.stringify({ files })], { cwd: root, encoding: 'utf8' });
  return JSON.parse(output) as Record<string, string[]>;
}

const importsManager = "import { EntityManager } from 'typeorm';\nexport type Handle = EntityManager;\n";
const importsTypeOnly = "import type { DataSource } from 'typeorm';\nexport type Handle = DataSource;\n";
const importsDeep = "import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';\nexport type Patch = QueryDeepPartialEntity<object>;\n";

/** Where a file sits, what it imports, and whether the rule refuses it. */
const cases: Array<{ file: string; text: string; refused: boolean }> = [
  // Use cases, services, publishers, modules and libraries outside the database plumbing.
  { file: 'apps/reports/src/expiry/probe.use-case.ts', text: importsManager, refused: true },
  { file: 'apps/webhooks/src/deliveries/probe.service.ts', text: importsTypeOnly, refused: true },
  { file: 'apps/reports/src/reports/probe.publisher.ts', text: importsDeep, refused: true },
  { file: 'apps/api-gateway/src/accounts/probe.module.ts', text: importsManager, refused: true },
  { file: 'libs/messaging/src/probe-rpc.ts', text: importsManager, refused: true },
  { file: 'libs/storage/src/probe.ts', text: importsManager, refused: true },
  // Repositories, entities, migrations, libs/database, the outbox, specs.
  { file: 'apps/reports/src/reports/probe.repository.ts', text: importsDeep, refused: false },
  { file: 'apps/reports/src/reports/probe.entity.ts', text: importsManager, refused: false },
  { file: 'apps/reports/src/database/migrations/1700000000000-Probe.ts', text: importsManager, refused: false },
  { file: 'libs/database/src/probe.ts', text: importsManager, refused: false },
  { file: 'libs/messaging/src/outbox-writer.ts', text: importsManager, refused: false },
  { file: 'apps/reports/src/expiry/probe.use-case.spec.ts', text: importsManager, refused: false },
];

describe('eslint: typeorm only in repositories, entities, migrations and the database plumbing (issue 31)', () => {
  let results: Record<string, string[]>;

  beforeAll(() => {
    results = lint(Object.fromEntries(cases.map(({ file, text }) => [file, text])));
  });

  it.each(cases)('$file: refused $refused', ({ file, refused }) => {
    expect(results[file]).toEqual(refused ? ['no-restricted-imports'] : []);
  });
});
