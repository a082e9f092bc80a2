export * from './clock';
export * from './expiring-map';
