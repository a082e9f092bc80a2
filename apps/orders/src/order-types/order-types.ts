import { aiDetectionFolder } from './ai-detection';
import { antiAiFolder } from './anti-ai';
import { OrderTypeFolder } from './order-type-definition';
import { watermarkEmbedFolder } from './watermark-embed';
import { watermarkExtractFolder } from './watermark-extract';

/** Every order type of the orders service; a new type adds its folder here (README "Add an order type"). */
export const ORDER_TYPE_FOLDERS: readonly OrderTypeFolder[] = [watermarkEmbedFolder, watermarkExtractFolder, antiAiFolder, aiDetectionFolder];
