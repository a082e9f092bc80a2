import { aiDetectionFolder } from './order-types/ai-detection';
import { antiAiFolder } from './order-types/anti-ai';
import { OrderTypeFolder } from './order-types/order-type-definition';
import { watermarkEmbedFolder } from './order-types/watermark-embed';
import { watermarkExtractFolder } from './order-types/watermark-extract';

/** Every order type of the orders service; a new type adds its folder here (README "Add an order type"). */
export const ORDER_TYPE_FOLDERS: readonly OrderTypeFolder[] = [watermarkEmbedFolder, watermarkExtractFolder, antiAiFolder, aiDetectionFolder];
