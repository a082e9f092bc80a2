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

describe('eslint: typeorm only in repositories (issue 31)', () => {
  it('fails use cases, services, publishers, modules and libraries outside the database plumbing', () => {
    const results = lint({
      'apps/reports/src/expiry/probe.use-case.ts': importsManager,
      'apps/webhooks/src/deliveries/probe.service.ts': importsTypeOnly,
      'apps/reports/src/reports/probe.publisher.ts': importsDeep,
      'apps/api-gateway/src/accounts/probe.module.ts': importsManager,
      'libs/messaging/src/probe-rpc.ts': importsManager,
      'libs/storage/src/probe.ts': importsManager,
    });
    for (const [file, rules] of Object.entries(results)) {
      expect({ file, rules }).toEqual({ file, rules: ['no-restricted-imports'] });
    }
  });

  it('lets repositories, entities, migrations, libs/database and specs use it', () => {
    const results = lint({
      'apps/reports/src/reports/probe.repository.ts': importsDeep,
      'apps/reports/src/reports/probe.entity.ts': importsManager,
      'apps/reports/src/database/migrations/1700000000000-Probe.ts': importsManager,
      'libs/database/src/probe.ts': importsManager,
      'libs/messaging/src/outbox-writer.ts': importsManager,
      'apps/reports/src/expiry/probe.use-case.spec.ts': importsManager,
    });
    for (const [file, rules] of Object.entries(results)) {
      expect({ file, rules }).toEqual({ file, rules: [] });
    }
  });
});
