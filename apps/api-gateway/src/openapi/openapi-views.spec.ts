// Issue 31: the response schemas of the OpenAPI document and the TypeScript views of `@cp/contracts` that the
// services return must say the same thing. Every schema `X` with a view `XView` is compared with it, field by
// field and into the schemas it refers to: the same fields, required exactly when the view's field is not
// optional, nullable exactly when the view's field admits null, the same kind of value, and the same values of
// an enumeration. (The e2e suite checks real responses against the document; this catches a view changed alone.)
import path from 'node:path';
import ts from 'typescript';
import type { ReferenceObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { OPENAPI_SCHEMAS } from './openapi-schemas';

const CONTRACTS = path.resolve(__dirname, '../../../../libs/contracts/src/index.ts');

type Schema = SchemaObject | ReferenceObject;

function isRef(schema: Schema): schema is ReferenceObject {
  return '$ref' in schema;
}

/** The named schema a `$ref` (or a nullable `allOf: [$ref]`) points at, with the nullability of the outer one. */
function resolve(schema: Schema): { schema: SchemaObject; name?: string; nullable: boolean } {
  if (isRef(schema)) {
    const name = schema.$ref.split('/').pop() ?? '';
    return { schema: OPENAPI_SCHEMAS[name], name, nullable: false };
  }
  const [only] = schema.allOf ?? [];
  if (only && isRef(only) && schema.allOf?.length === 1) {
    return { ...resolve(only), nullable: schema.nullable === true };
  }
  return { schema, nullable: schema.nullable === true };
}

class ViewComparer {
  private readonly checker: ts.TypeChecker;
  private readonly views = new Map<string, ts.Type>();

  constructor() {
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

  view(name: string): ts.Type | undefined {
    return this.views.get(name);
  }

  /** Every difference between `schema` and the view type `type`, each as `<path>: <what differs>`. */
  differences(schema: Schema, type: ts.Type, at: string, seen = new Set<string>()): string[] {
    const { schema: resolved, name, nullable } = resolve(schema);
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

describe('OpenAPI response schemas and the contract views', () => {
  const comparer = new ViewComparer();
  const compared = Object.keys(OPENAPI_SCHEMAS).filter((name) => comparer.view(`${name}View`));

  it('every response schema with a view is compared (the views of every data response)', () => {
    expect(compared).toEqual(expect.arrayContaining(['WatermarkOrder', 'Download', 'Report', 'V2OrderDetail', 'WebhookEventPage', 'AiDetectionConfirm']));
  });

  it.each(compared)('%s says what its view says', (name) => {
    const view = comparer.view(`${name}View`) as ts.Type;
    expect(comparer.differences(OPENAPI_SCHEMAS[name], view, name)).toEqual([]);
  });

  it('finds a field only on one side, a requirement, a nullability, a kind and a value that differ', () => {
    const changed: SchemaObject = {
      type: 'object',
      required: ['orderId', 'status', 'processingDelayed', 'expiresAt', 'files', 'outputs', 'reports', 'detection'],
      properties: {
        ...OPENAPI_SCHEMAS.WatermarkOrder.properties,
        orderId: { type: 'integer' },
        status: { type: 'string', enum: ['pending', 'archived'] },
        expiresAt: { type: 'string' },
        extra: { type: 'string' },
      },
    };
    expect(comparer.differences(changed, comparer.view('WatermarkOrderView') as ts.Type, 'Changed')).toEqual([
      'Changed.orderId: integer in the schema, string in the view',
      'Changed.status: archived in the schema, not a value of the view (pending|inProgress|complete|failed|expired)',
      'Changed.expiresAt: nullable false in the schema, true in the view',
      'Changed.result: required true in the view, false in the schema',
      'Changed.detection: required false in the view, true in the schema',
      'Changed.extra: only in the schema',
    ]);
  });
});
