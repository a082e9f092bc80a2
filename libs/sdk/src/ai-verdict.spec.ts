import { describeAiDetection } from './ai-verdict';

describe('describeAiDetection', () => {
  it('says "cannot be determined" for a file with no evidence, never the category alone', () => {
    const line = describeAiDetection({ verdict: 'cannot_be_determined', noEvidence: true, probability: 0.5, category: 'uncertain_ai' });
    expect(line).toBe('Cannot be determined: no provenance or generator evidence was found (probability 50%, spec category uncertain_ai)');
  });

  it('leads with the verdict and keeps the spec category beside it', () => {
    expect(describeAiDetection({ verdict: 'edited_with_ai', noEvidence: false, probability: 0.8808, category: 'likely_ai' })).toBe(
      'Edited with AI (probability 88.1%, spec category likely_ai)',
    );
    expect(describeAiDetection({ verdict: 'cannot_be_determined', noEvidence: false, probability: 0.6225, category: 'uncertain_ai' })).toMatch(/^Cannot be determined \(/);
  });
});
