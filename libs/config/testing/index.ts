export * from './configuration-doc';
