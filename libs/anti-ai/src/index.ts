export { AntiAiEngine } from './anti-ai-engine';
export { CAWG_ENTRIES, CAWG_TRAINING_MINING_LABEL, ContentCredentialsSigner, readContentCredentials } from './content-credentials';
export type { ContentCredentialsReport, ManifestRequest } from './content-credentials';
export { OptOutMetadataWriter, TDMREP_NAMESPACE } from './opt-out-metadata';
export type { OptOutReadBack } from './opt-out-metadata';
export { generateDevelopmentCredentials, loadSigningCredentials } from './signing-credentials';
export type { SigningCredentials } from './signing-credentials';
export {
  ANTI_AI_STRENGTHS,
  AntiAiError,
  AntiAiErrorCode,
  DATA_MINING_BY_STRENGTH,
  DEFAULT_ANTI_AI_STRENGTH,
  LAYERS_BY_STRENGTH,
  PLUS_VOCABULARY,
} from './types';
export type { AntiAiFormat, AntiAiLayer, AntiAiStrength, ProtectOptions, ProtectResult } from './types';
