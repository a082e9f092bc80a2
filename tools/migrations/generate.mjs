#!/usr/bin/env node
// Generates a TypeORM migration for one service from the difference between its entities and its
// committed migrations, using a scratch database:
//   npm run migration:generate -- <service> <MigrationName>
// The new file lands in apps/<service>/src/database/migrations/ and is added to that folder's index.ts.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

const [service, name] = process.argv.slice(2);
if (!service || !name || !/^[A-Z][A-Za-z0-9]+$/.test(name)) {
  console.error('usage: npm run migration:generate -- <service> <MigrationName in PascalCase>');
  process.exit(2);
}
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const serviceDir = path.join(root, 'apps', service, 'src', 'database');
const dataSourceFile = path.join(serviceDir, 'data-source.ts');
if (!existsSync(dataSourceFile)) {
  console.error(`no data source at ${path.relative(root, dataSourceFile)}`);
  process.exit(2);
}
const indexSource = readFileSync(path.join(serviceDir, 'migrations', 'index.ts'), 'utf8');
if (!/export const \w+ = \[/.test(indexSource)) {
  // Without the list of committed migrations the diff would be taken against an empty schema.
  console.error('the migrations index.ts does not export its list (export const X_MIGRATIONS = [...])');
  process.exit(2);
}
const adminUrl = process.env.MIGRATION_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// One scratch database per service, so two services can be generated at the same time.
const scratch = `cp_migrations_${service.replace(/-/g, '_')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
await admin.query(`CREATE DATABASE ${scratch}`);
await admin.end();

const schema = /SCHEMA = '([a-z_]+)'/.exec(readFileSync(path.join(serviceDir, 'entities.ts'), 'utf8'))?.[1];
const databaseUrl = `postgres://postgres@127.0.0.1:5432/${scratch}`;
const scratchClient = new pg.Client({ connectionString: databaseUrl });
await scratchClient.connect();
await scratchClient.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
await scratchClient.end();

const cli = path.join(root, 'node_modules', 'typeorm', 'cli.js');
const env = { ...process.env, DATABASE_URL: databaseUrl };
const run = (args) => execFileSync(process.execPath, ['-r', path.join(root, 'tools/register.js'), cli, ...args], { cwd: root, env, stdio: 'inherit' });
run(['migration:run', '-d', dataSourceFile]);
const migrationsDir = path.join(serviceDir, 'migrations');
const before = new Set(readdirSync(migrationsDir));
run(['migration:generate', '-p', '-d', dataSourceFile, path.join(migrationsDir, name)]);
const created = readdirSync(migrationsDir).filter((file) => !before.has(file));
if (created.length !== 1) {
  console.error('no migration was generated (entities and migrations already agree?)');
  process.exit(1);
}
const file = created[0];
const className = /export class (\w+)/.exec(readFileSync(path.join(migrationsDir, file), 'utf8'))[1];
const isFirst = before.size <= 1;
if (isFirst) {
  // TypeORM does not emit CREATE SCHEMA; the first migration of a service owns it.
  const filePath = path.join(migrationsDir, file);
  const source = readFileSync(filePath, 'utf8').replace(
    /public async up\(queryRunner: QueryRunner\): Promise<void> \{\n/,
    (match) => `${match}        await queryRunner.query(\`CREATE SCHEMA IF NOT EXISTS "${schema}"\`);\n`,
  );
  writeFileSync(filePath, source);
}
const indexFile = path.join(migrationsDir, 'index.ts');
const index = readFileSync(indexFile, 'utf8');
const imports = [...index.matchAll(/^import \{ (\w+) \} from '\.\/([^']+)';$/gm)].map((m) => [m[1], m[2]]);
imports.push([className, file.replace(/\.ts$/, '')]);
const exportName = /export const (\w+)/.exec(index)[1];
writeFileSync(
  indexFile,
  `import { MESSAGING_MIGRATIONS } from '@cp/messaging';\n` +
    `${imports.map(([cls, mod]) => `import { ${cls} } from './${mod}';`).join('\n')}\n\n` +
    `/** Committed migrations, in order (the outbox and inbox tables first, shipped by @cp/messaging); run at start by the service. */\n` +
    `export const ${exportName} = [...MESSAGING_MIGRATIONS, ${imports.map(([cls]) => cls).join(', ')}];\n`,
);
console.log(`generated ${path.relative(root, path.join(migrationsDir, file))}`);
