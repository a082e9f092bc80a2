import { DetectionEvidenceEntity } from '../detection/detection-evidence.entity';
import { DetectionRunEntity } from '../detection/detection-run.entity';

export const AIDETECT_SCHEMA = 'aidetect';
export const AIDETECT_ENTITIES = [DetectionRunEntity, DetectionEvidenceEntity];
