export * from './address-policy';
export * from './egress-client';
export * from './egress-error';
