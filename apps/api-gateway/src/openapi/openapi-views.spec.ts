// Issue 31: the response schemas of the OpenAPI document and the TypeScript views of `@cp/contracts` that the
// services return must say the same thing. Most schemas are generated from the view classes' decorators, and a
// decorator can still say something else than the field it sits on (a `?` without `ApiPropertyOptional`, a
// `| null` without `nullable`, a field without a decorator at all), and the hand-written remainder can drift
// freely. Every schema `X` of the served document with a view `XView` (or a class `X`) is compared with it, field by
// field and into the schemas it refers to: the same fields, required exactly when the view's field is not
// optional, nullable exactly when the view's field admits null, the same kind of value, and the same values of
// an enumeration. (The e2e suite checks real responses against the document; this catches a view changed alone.)
import path from 'node:path';
import ts from 'typescript';
import { NestFactory } from '@nestjs/core';
import type { ReferenceObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { buildOpenApiDocument } from './openapi-document';
import { OpenApiHostModule } from './openapi-host.module';
import { OPENAPI_SCHEMAS } from './openapi-schemas';
import { RESPONSE_VIEWS } from './openapi-views';

const CONTRACTS = path.resolve(__dirname, '../../../../libs/contracts/src/index.ts');

type Schema = SchemaObject | ReferenceObject;

function isRef(schema: Schema): schema is ReferenceObject {
  return '$ref' in schema;
}

type Schemas = Record<string, SchemaObject>;

/**
 * The named schema a `$ref` (or a nullable `allOf: [$ref]`, or the `anyOf: [$ref, { enum: [null] }]` the document
 * makes of it) points at, with the nullability of the outer one.
 */
function resolve(schema: Schema, schemas: Schemas): { schema: SchemaObject; name?: string; nullable: boolean } {
  if (isRef(schema)) {
    const name = schema.$ref.split('/').pop() ?? '';
    return { schema: schemas[name], name, nullable: false };
  }
  const [only] = schema.allOf ?? [];
  if (only && isRef(only) && schema.allOf?.length === 1) {
    return { ...resolve(only, schemas), nullable: schema.nullable === true };
  }
  const [reference, nullBranch] = schema.anyOf ?? [];
  if (reference && isRef(reference) && schema.anyOf?.length === 2 && nullBranch && !isRef(nullBranch) && nullBranch.enum?.length === 1 && nullBranch.enum[0] === null) {
    return { ...resolve(reference, schemas), nullable: schema.nullable === true };
  }
  return { schema, nullable: schema.nullable === true };
}

class ViewComparer {
  private readonly checker: ts.TypeChecker;
  private readonly views = new Map<string, ts.Type>();

  constructor(private readonly schemas: Schemas) {
    const program = ts.createProgram([CONTRACTS], {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      experimentalDecorators: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    });
    this.checker = program.getTypeChecker();
    const entry = program.getSourceFile(CONTRACTS);
    const module = entry && this.checker.getSymbolAtLocation(entry);
    for (const symbol of module ? this.checker.getExportsOfModule(module) : []) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol;
      if (target.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class | ts.SymbolFlags.TypeAlias)) {
        this.views.set(symbol.getName(), this.checker.getDeclaredTypeOfSymbol(target));
      }
    }
  }

  /** The view of schema `name`: the contract type `<name>View`, else a class of that very name. */
  view(name: string): ts.Type | undefined {
    return this.views.get(`${name}View`) ?? this.views.get(name);
  }

  /** Every difference between `schema` and the view type `type`, each as `<path>: <what differs>`. */
  differences(schema: Schema, type: ts.Type, at: string, seen = new Set<string>()): string[] {
    const { schema: resolved, name, nullable } = resolve(schema, this.schemas);
    const admitsNull = this.admitsNull(type);
    const problems = nullable === admitsNull || !at.includes('.') ? [] : [`${at}: nullable ${String(nullable)} in the schema, ${String(admitsNull)} in the view`];
    const value = this.checker.getNonNullableType(type);
    if (name && seen.has(name)) {
      return problems;
    }
    const inner = name ? new Set([...seen, name]) : seen;
    if (resolved.type === 'array') {
      const [element] = this.checker.isArrayType(value) ? this.checker.getTypeArguments(value as ts.TypeReference) : [];
      return element && resolved.items ? [...problems, ...this.differences(resolved.items, element, `${at}[]`, inner)] : [...problems, `${at}: an array in the schema, not in the view`];
    }
    if (resolved.properties) {
      return [...problems, ...this.objectDifferences(resolved, value, at, inner)];
    }
    return [...problems, ...this.valueDifferences(resolved, value, at)];
  }

  private objectDifferences(schema: SchemaObject, type: ts.Type, at: string, seen: Set<string>): string[] {
    const properties = schema.properties ?? {};
    const fields = new Map(this.checker.getPropertiesOfType(type).map((symbol) => [symbol.getName(), symbol]));
    const problems: string[] = [];
    for (const field of new Set([...Object.keys(properties), ...fields.keys()])) {
      const symbol = fields.get(field);
      const property = properties[field];
      if (!symbol || !property) {
        problems.push(`${at}.${field}: only in the ${symbol ? 'view' : 'schema'}`);
        continue;
      }
      const required = (symbol.flags & ts.SymbolFlags.Optional) === 0;
      if (required !== (schema.required ?? []).includes(field)) {
        problems.push(`${at}.${field}: required ${String(required)} in the view, ${String(!required)} in the schema`);
      }
      const fieldType = this.checker.getTypeOfSymbol(symbol);
      problems.push(...this.differences(property, fieldType, `${at}.${field}`, seen));
    }
    return problems;
  }

  private valueDifferences(schema: SchemaObject, type: ts.Type, at: string): string[] {
    const kinds: Record<string, ts.TypeFlags> = {
      string: ts.TypeFlags.StringLike,
      integer: ts.TypeFlags.NumberLike,
      number: ts.TypeFlags.NumberLike,
      boolean: ts.TypeFlags.BooleanLike,
    };
    const members = type.isUnion() ? type.types : [type];
    const kind = schema.type ? kinds[schema.type] : undefined;
    if (kind !== undefined && !members.every((member) => (member.flags & kind) !== 0)) {
      return [`${at}: ${String(schema.type)} in the schema, ${this.checker.typeToString(type)} in the view`];
    }
    const literals = members.filter((member) => member.isLiteral() || member.flags & ts.TypeFlags.BooleanLiteral);
    if (schema.enum && literals.length === members.length && kind !== ts.TypeFlags.BooleanLike) {
      // The schema may promise fewer values than the view's type can hold (a new order is always `pending`), never others.
      const values = new Set(literals.map((member) => this.checker.typeToString(member).replace(/^"(.*)"$/, '$1')));
      const others = schema.enum.map(String).filter((listed) => !values.has(listed));
      if (others.length > 0) {
        return [`${at}: ${others.join('|')} in the schema, not a value of the view (${[...values].join('|')})`];
      }
    }
    return [];
  }

  private admitsNull(type: ts.Type): boolean {
    return (type.isUnion() ? type.types : [type]).some((member) => (member.flags & ts.TypeFlags.Null) !== 0);
  }
}

/** The schema names of the document: the generated ones (class name without `View`, as `@ApiSchema` names them) and the hand-written ones. */
const GENERATED = RESPONSE_VIEWS.map((view) => view.name.replace(/View$/, ''));
const SCHEMA_NAMES = [...GENERATED, ...Object.keys(OPENAPI_SCHEMAS)];

describe('OpenAPI response schemas and the contract views', () => {
  let schemas: Schemas;
  let comparer: ViewComparer;
  let references: string[];
  beforeAll(async () => {
    const app = await NestFactory.create(OpenApiHostModule.register(), { logger: false });
    const document = buildOpenApiDocument(app);
    await app.close();
    schemas = (document.components?.schemas ?? {}) as Schemas;
    comparer = new ViewComparer(schemas);
    references = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(([, name]) => name);
  });

  it('resolves every reference of the routes and schemas (a route names its schema by string: `ApiData`)', () => {
    expect(references.length).toBeGreaterThan(50);
    expect([...new Set(references)].filter((name) => !(name in schemas))).toEqual([]);
  });

  it('serves every generated and hand-written schema under its published name', () => {
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(SCHEMA_NAMES));
  });

  it('compares every response schema with a view', () => {
    expect(SCHEMA_NAMES.filter((name) => !comparer.view(name))).toEqual([]);
  });

  it.each(SCHEMA_NAMES)('%s says what its view says', (name) => {
    const view = comparer.view(name) as ts.Type;
    expect(comparer.differences(schemas[name], view, name)).toEqual([]);
  });

  it('finds a field only on one side, a requirement, a nullability, a kind and a value that differ', () => {
    const changed: SchemaObject = {
      type: 'object',
      required: ['orderId', 'status', 'processingDelayed', 'expiresAt', 'files', 'outputs', 'reports', 'failure', 'detection'],
      properties: {
        ...schemas.WatermarkOrder.properties,
        orderId: { type: 'integer' },
        status: { type: 'string', enum: ['pending', 'archived'] },
        expiresAt: { type: 'string' },
        extra: { type: 'string' },
      },
    };
    expect(comparer.differences(changed, comparer.view('WatermarkOrder') as ts.Type, 'Changed')).toEqual([
      'Changed.orderId: integer in the schema, string in the view',
      'Changed.status: archived in the schema, not a value of the view (pending|inProgress|complete|failed|expired)',
      'Changed.expiresAt: nullable false in the schema, true in the view',
      'Changed.result: required true in the view, false in the schema',
      'Changed.detection: required false in the view, true in the schema',
      'Changed.extra: only in the schema',
    ]);
  });
});
