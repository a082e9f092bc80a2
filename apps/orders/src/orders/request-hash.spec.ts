// The idempotency fingerprint of a creation request (docs/api-decisions.md: "same body = same JSON after validation").
// Outside review: `"originalFileUrl": null` and the same body without the field mean the same (an upload slot), but
// were fingerprinted apart, so repeating one after the other was 409 WATERMARK_V2_CONFLICT. null is refused by
// validation now (400 VALIDATION_FAILED, a rule of @cp/contracts), here as at the gateway, so an absent field has one
// spelling and a fingerprint never sees null.
import { CreateEmbedOrderCommand, DomainException, ErrorCode } from '@cp/contracts';
import { RpcValidationPipe } from '@cp/messaging';
import { canonicalJson, requestHash } from './order-creation.service';

const CALLER = { accountId: '7', mode: 'live' };

function embedCommand(file: Record<string, unknown>): unknown {
  return { caller: CALLER, request: { idempotencyKey: 'n1', files: [{ fileName: 'a.jpg', ...file, watermarks: [{ text: 'leak' }] }] } };
}

/** What the orders service's create-embed handler receives: the command as it crossed NATS, validated. */
function received(command: unknown): CreateEmbedOrderCommand | ErrorCode {
  try {
    return new RpcValidationPipe().transform(JSON.parse(JSON.stringify(command)), { type: 'body', metatype: CreateEmbedOrderCommand }) as CreateEmbedOrderCommand;
  } catch (error) {
    return error instanceof DomainException ? error.code : ErrorCode.SERVER_INTERNAL_ERROR;
  }
}

function fingerprintOf(command: unknown): string {
  const validated = received(command);
  if (typeof validated === 'string') throw new Error(`refused: ${validated}`);
  return requestHash(validated.request);
}

describe('the idempotency fingerprint of a creation request', () => {
  it('is the same for the same body whatever its key order, and differs for another body', () => {
    const reordered = { caller: CALLER, request: { files: [{ watermarks: [{ text: 'leak' }], fileName: 'a.jpg' }], idempotencyKey: 'n1' } };
    expect(fingerprintOf(reordered)).toBe(fingerprintOf(embedCommand({})));
    expect(fingerprintOf(embedCommand({ originalFileUrl: 'https://images.example.com/a.jpg' }))).not.toBe(fingerprintOf(embedCommand({})));
  });

  it('leaves out a member the DTO holds as undefined: the built body and the JSON without the field are one fingerprint', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
  });

  it('never sees "originalFileUrl": null: the command is refused with VALIDATION_FAILED, so null cannot be a second spelling of absent', () => {
    expect(received(embedCommand({ originalFileUrl: null }))).toBe(ErrorCode.VALIDATION_FAILED);
    expect(received(embedCommand({}))).toBeInstanceOf(CreateEmbedOrderCommand);
  });
});
