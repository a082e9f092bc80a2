import { deliveryScopeOf, webhookReceives } from './webhook-mode';

describe('webhook key modes', () => {
  it('live webhooks receive every event; test webhooks only test orders\' events', () => {
    expect([webhookReceives('live', false), webhookReceives('live', true), webhookReceives('test', true), webhookReceives('test', false)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it('a test key is held to test events; a live key sees every delivery of its webhooks', () => {
    expect([deliveryScopeOf('test'), deliveryScopeOf('live')]).toEqual(['testEvents', 'all']);
  });
});
