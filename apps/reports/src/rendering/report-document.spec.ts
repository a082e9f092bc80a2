import { ReportLocale } from '@cp/contracts';
import { closePdfRenderer, pdfPageTexts } from '@cp/watermark-pdf';
import { closePdfRenderer as closeReportRenderer, renderPdf } from './pdf-renderer';
import { buildReportDocument, cutUserText, groupedHash, ReportDocumentData, userText } from './report-document';
import { REPORT_MESSAGES } from './report-messages';
import { fontForText, localeFont } from './report-fonts';

function data(locale: ReportLocale, overrides: Partial<ReportDocumentData> = {}): ReportDocumentData {
  return {
    locale,
    orderId: '9876543210',
    orderName: 'extract-9876543210',
    mode: 'live',
    createdAt: '2026-11-20T10:00:00.000Z',
    completedAt: '2026-11-20T10:01:00.000Z',
    expiresAt: '2026-12-20T10:00:00.000Z',
    detectionStatus: 'detected',
    watermarkText: 'leak: 홍길동',
    confidence: 0.97,
    method: 'registered',
    evidence: {
      payloadBits: 64,
      checkBits: 40,
      checkBitsMatched: 40,
      codedBits: 330,
      codedBitsAgreeing: 301,
      softAgreement: 0.87,
      threshold: 0.2,
      decodingAttempts: 28,
      chanceBound: 28 * 2 ** -40,
      transform: { rotationDeg: -137, scale: 0.7, mirrored: true, originalAreaVisible: 0.64, perspective: false },
    },
    original: { role: 'original', fileName: 'mine.png', size: 1234, sha256: 'a'.repeat(64), thumbnailPng: null, replaced: false },
    inspected: { role: 'inspected', fileName: 'found.jpg', size: 567, sha256: 'b'.repeat(64), thumbnailPng: null, replaced: false },
    issuer: 'Test issuer',
    generatedAt: new Date('2026-11-21T00:00:00.000Z'),
    reportReference: `RPT-9876543210-${locale}-1`,
    ...overrides,
  };
}

async function text(definition: ReportDocumentData): Promise<string> {
  const pdf = await renderPdf(buildReportDocument(definition));
  return (await pdfPageTexts(pdf)).join('\n');
}

describe('report document', () => {
  afterAll(() => Promise.all([closePdfRenderer(), closeReportRenderer()]));

  it.each([
    ['ko-KR', '검출됨', /[\uac00-\ud7af]/],
    ['en-US', 'Detected', /Watermark Detection Report/],
    ['ja-JP', '検出', /[\u3040-\u30ff]/],
  ] as const)('%s: order id, status word, script, watermark text and both hashes', async (locale, word, script) => {
    const content = await text(data(locale));
    expect(content).toContain('9876543210');
    expect(content).toContain(word);
    expect(content).toMatch(script);
    expect(content).toContain('leak: 홍길동');
    expect(content).toContain('a'.repeat(64));
    expect(content).toContain('b'.repeat(64));
  });

  it.each([
    ['en-US', ['40 of 40', '301 of 330', 'other 29', 'Soft agreement 87%', '1 in 39,000,000,000', 'upper bound', 'Rotated 137° clockwise', 'scaled to 70%', 'mirrored', '64% of the original']],
    ['ko-KR', ['40개 중 40개', '330개 중 301개', '29개', '39,000,000,000분의 1', '상한', '시계 방향으로 137° 회전', '70%', '반전됨', '64%']],
    ['ja-JP', ['40 個中 40 個', '330 個中 301 個', '29 個', '39,000,000,000 分の 1', '上限', '時計回りに 137° 回転', '70%', '鏡像反転あり', '64%']],
  ] as const)('%s: states the evidence (check bits, coded bits, margin, chance bound, transform), no bare confidence', async (locale, parts) => {
    const content = (await text(data(locale))).replace(/\s+/g, ' ');
    for (const part of parts) expect(content).toContain(part);
    expect(content).not.toMatch(/Confidence|신뢰도|信頼度/);
  });

  // "before error correction" is when the coded bits agreed, not how the code word was decoded (the Korean and
  // Japanese put it before "decoded": a code word decoded before error correction)
  it.each([
    ['en-US', 'agreedwiththedecodedcodewordbeforeerrorcorrection'],
    ['ko-KR', '오류정정전기준으로부호화비트330개중301개가복호된부호어와일치했으며'],
    ['ja-JP', '誤り訂正の前の時点で、符号化ビット330個中301個が復号した符号語と一致し'],
  ] as const)('%s: says the coded bits agreed before error correction with the decoded code word', async (locale, agreement) => {
    const content = (await text(data(locale))).replace(/\s+/g, '');
    expect(content).toContain(agreement);
    expect(content).not.toMatch(/오류정정전에복호된|誤り訂正の前に復号した/);
  });

  it('says when no geometric edit was found and when the mark was read blind', async () => {
    const evidence = { ...data('en-US').evidence, transform: { rotationDeg: 0, scale: 1, mirrored: false, originalAreaVisible: 1, perspective: false } } as ReportDocumentData['evidence'];
    expect(await text(data('en-US', { evidence }))).toContain('the geometry of the original');
    const blind = { ...data('en-US').evidence, transform: undefined } as ReportDocumentData['evidence'];
    expect(await text(data('en-US', { evidence: blind, method: 'blind' }))).toContain('without aligning');
    expect(await text(data('en-US', { evidence: null }))).not.toContain('Check bits');
  });

  // Outside review: the original of a copy read blind (no alignment with it used) was listed as the reference and
  // nothing said the copy had not been matched to it
  const squeezed = (value: string): string => value.replace(/\s+/g, '');
  it.each(['en-US', 'ko-KR', 'ja-JP'] as const)('%s: says plainly when the inspected file was not matched to the original', async (locale) => {
    const m = REPORT_MESSAGES[locale];
    const blindEvidence = { ...data(locale).evidence, transform: undefined } as ReportDocumentData['evidence'];
    const read = squeezed(await text(data(locale, { method: 'blind', evidence: blindEvidence })));
    expect(read).toContain(squeezed(m.result.originalMatch));
    expect(read).toContain(squeezed(m.result.notMatchedMarkRead));
    expect(read).toContain(squeezed(m.files.notMatched));
    const inconclusive = squeezed(await text(data(locale, { method: 'blind', detectionStatus: 'inconclusive', watermarkText: null, evidence: blindEvidence })));
    expect(inconclusive).toContain(squeezed(m.result.notMatchedMarkRead));
    // not detected without a registration: no alignment was found, and nothing is said to have been read
    const searched = squeezed(await text(data(locale, { method: 'blind', detectionStatus: 'not_detected', watermarkText: null, confidence: 0, evidence: null })));
    expect(searched).toContain(squeezed(m.result.notMatchedNoAlignment));
    expect(searched).not.toContain(squeezed(m.result.notMatchedMarkRead));
    expect(searched).toContain(squeezed(m.files.notMatched));
    // searched, not found: the Korean said "워터마크를 찾았습니다", which also reads "found the watermark"
    expect(searched).not.toContain('워터마크를찾았습니다');
  });

  it('says nothing of a mismatch when the detection used an alignment with the original, or read nothing', async () => {
    const m = REPORT_MESSAGES['en-US'];
    for (const overrides of [{}, { detectionStatus: 'not_detected', watermarkText: null, evidence: null }, { detectionStatus: 'unsupported', method: 'none', evidence: null }] as const) {
      const content = squeezed(await text(data('en-US', overrides)));
      expect(content).not.toContain(squeezed(m.result.originalMatch));
      expect(content).not.toContain(squeezed(m.files.notMatched));
      expect(content).not.toContain('Notmatched');
    }
  });

  // issue 36: a copy combined from several recipients' copies; no identifier decoded, every accused listed
  const colluders = (locale: ReportLocale): ReportDocumentData =>
    data(locale, {
      watermarkText: null,
      confidence: 0.41,
      evidence: {
        ...data(locale).evidence!,
        checkBitsMatched: 0,
        codedBitsAgreeing: 0,
        softAgreement: 0.41,
        colluders: {
          candidatesTested: 200,
          level: 29 * 2 ** -40,
          threshold: 7.62,
          mixing: 'region-splicing',
          accused: [
            { orderId: '5551', watermarkText: 'leak: 김철수', z: 11.84, bound: 3.1e-28, correlation: 0.65, regionShare: 0.56 },
            { orderId: '5552', watermarkText: 'leak: 田中', z: 9.02, bound: 2.4e-16, correlation: 0.5, regionShare: 0.44 },
          ],
        },
      },
    });

  it.each([
    ['en-US', ['Recipients who contributed', 'leak: 김철수', 'leak: 田中', '5551', '5552', '11.8', '9.0', '1 in 3.2 × 10^27', '1 in 4.1 × 10^15', 'Candidates tested', '200', 'Splicing by region', '56%', 'score of at least 7.6', 'a third on the joint least-squares estimate', 'Several recipients contributed', 'No single identifier']],
    ['ko-KR', ['기여한 수령인 (후보 추적)', 'leak: 김철수', 'leak: 田中', '5551', '11.8', '9.0', '3.2 × 10^27분의 1', '200명', '영역별 이어 붙이기', '56%', '점수 7.6 이상', '세 번째 검정', '판정되었습니다', '여러 수령인이 기여했습니다']],
    ['ja-JP', ['関与した受取人（候補の追跡）', 'leak: 김철수', 'leak: 田中', '5552', '11.8', '9.0', '3.2 × 10^27 分の 1', '200 件', '領域ごとのつなぎ合わせ', '44%', 'スコア 7.6 以上', '判定されました', '結合最小二乗推定に対する 3 つ目の検定', '複数の受取人が関与しています']],
    // every locale states the tests the engine makes (the third, on the joint estimate, was missing from ko-KR and ja-JP)
  ] as const)('%s: lists every accused recipient with score, bound, candidates tested and mixing', async (locale, parts) => {
    const content = (await text(colluders(locale))).replace(/\s+/g, ' ');
    for (const part of parts) expect(content).toContain(part);
    // no decoded identifier: the decoding rows (check bits 0 of 40) are not printed as if something was decoded
    expect(content).not.toMatch(/0 of 40|40개 중 0개|40 個中 0 個/);
    // the accused "contributed" to the copy, as in English; the Korean and Japanese said they took part in a leak
    // ("유출에 참여한", "流出に関与した"), a wrongdoing the method does not show
    expect(content).not.toMatch(/유출|流出/);
    // who may not be named: any recipient with a small share of the copy (the Japanese said a tiny part, "ごく一部")
    const bare = content.replace(/\s+/g, '');
    expect(bare).toContain({ 'en-US': 'onlyasmallshareofthecopymaynotbenamed', 'ko-KR': '작은부분만기여한수령인은지목되지않을수있습니다', 'ja-JP': '小さな割合にしか関与していない受取人は、指摘されないことがあります' }[locale]);
    expect(bare).not.toContain('ごく一部');
  });

  // Outside review (legal filing): the bound of 104 code words, 104 · 2^-40, is 1 in 10,572,149,… and was printed
  // "at most 1 in 11,000,000,000", a smaller chance than the design gives; a bound is rounded toward the larger chance
  it.each([
    ['en-US', '1 in 10,000,000,000', '11,000,000,000'],
    ['ko-KR', '10,000,000,000분의 1', '11,000,000,000'],
    ['ja-JP', '10,000,000,000 分の 1', '11,000,000,000'],
  ] as const)('%s: rounds the chance of a false match and the colluder bounds toward the larger chance, never below the bound', async (locale, bound, overstated) => {
    const evidence = { ...data(locale).evidence!, decodingAttempts: 104, chanceBound: 104 * 2 ** -40 };
    const single = (await text(data(locale, { evidence }))).replace(/\s+/g, ' ');
    expect(single).toContain(bound);
    expect(single).not.toContain(overstated);
    const traced = colluders(locale);
    const c = traced.evidence!.colluders!;
    const content = (await text({ ...traced, evidence: { ...traced.evidence!, colluders: { ...c, level: 104 * 2 ** -40 } } })).replace(/\s+/g, ' ');
    expect(content).toContain(bound);
    expect(content).not.toContain(overstated);
    // 1 / 2.4e-16 is 4.17 × 10^15: "1 in 4.2 × 10^15" would claim a smaller chance than the bound
    expect(content).toMatch(/4\.1 × 10\^15/);
    expect(content).not.toMatch(/4\.2 × 10\^15/);
  });

  // "named only when ... a score of at least T" holds only if T is not printed above the engine's threshold:
  // 7.66 was printed "7.7", a higher bar than the one applied
  it.each([
    ['en-US', 'scoreofatleast7.6', 'scoreofatleast7.7'],
    ['ko-KR', '점수7.6이상', '점수7.7이상'],
    ['ja-JP', 'スコア7.6以上', 'スコア7.7以上'],
  ] as const)('%s: rounds the colluder score threshold down, never above the one applied', async (locale, floor, above) => {
    const traced = colluders(locale);
    const c = traced.evidence!.colluders!;
    const content = (await text({ ...traced, evidence: { ...traced.evidence!, colluders: { ...c, threshold: 7.66 } } })).replace(/\s+/g, '');
    expect(content).toContain(floor);
    expect(content).not.toContain(above);
  });

  // Outside review (legal filing): a not-detected result carries no measured agreement (the engine sets 0 for every
  // not_detected, no candidate decoded), and "Signal agreement 0%" stated a measurement that was never made
  it.each(['en-US', 'ko-KR', 'ja-JP'] as const)('%s: prints no signal agreement for a not-detected result, only for what was measured', async (locale) => {
    const m = REPORT_MESSAGES[locale];
    const content = squeezed(await text(data(locale, { detectionStatus: 'not_detected', watermarkText: null, confidence: 0, evidence: null })));
    expect(content).toContain(squeezed(`${m.result.confidence} ${m.result.confidenceNotApplicable}`));
    expect(content).not.toContain(squeezed(`${m.result.confidence} 0%`));
    const inconclusive = squeezed(await text(data(locale, { detectionStatus: 'inconclusive', watermarkText: null, confidence: 0.12 })));
    expect(inconclusive).toContain(squeezed(`${m.result.confidence} 12%`));
  });

  // Outside review (legal filing): the report said what was found, never what the result cannot show
  it.each(['en-US', 'ko-KR', 'ja-JP'] as const)('%s: states the limits of the method for detected, not detected and inconclusive results', async (locale) => {
    const m = REPORT_MESSAGES[locale];
    for (const detectionStatus of ['detected', 'not_detected', 'inconclusive'] as const) {
      const limits = m.result.limitsValues[detectionStatus] ?? '';
      expect(limits).not.toBe('');
      const content = squeezed(await text(data(locale, { detectionStatus, watermarkText: detectionStatus === 'detected' ? 'leak: 홍길동' : null })));
      expect(content).toContain(squeezed(`${m.result.limits} ${limits}`));
    }
    // unsupported and error already say the file was not checked
    expect(squeezed(await text(data(locale, { detectionStatus: 'error', watermarkText: null, method: 'none', evidence: null })))).not.toContain(squeezed(m.result.limits));
  });

  it('one recipient found only by tracing: its text, and no claim of several', async () => {
    const one = colluders('en-US');
    const c = one.evidence?.colluders;
    if (!one.evidence || !c) throw new Error('no colluders');
    const content = (await text({ ...one, watermarkText: 'leak: 김철수', evidence: { ...one.evidence, colluders: { ...c, mixing: null, accused: c.accused.slice(0, 1) } } })).replace(/\s+/g, ' ');
    expect(content).toContain('found by testing every recipient');
    expect(content).toContain('One recipient only');
    expect(content).not.toContain('Several recipients');
  });

  // "No identifier was decoded on its own": the Korean said something was not decoded from the identifier alone
  it.each([
    ['en-US', 'Noidentifierwasdecodedonitsown', 'Onerecipientonly'],
    ['ko-KR', '어떤식별자도단독으로복호되지않았습니다', '수령인한명뿐입니다'],
    ['ja-JP', '識別子単独では復号されませんでした', '受取人は1件のみです'],
  ] as const)('%s: one recipient found only by tracing: no identifier was decoded on its own', async (locale, notDecoded, single) => {
    const one = colluders(locale);
    const c = one.evidence?.colluders;
    if (!one.evidence || !c) throw new Error('no colluders');
    const content = (await text({ ...one, watermarkText: 'leak: 김철수', evidence: { ...one.evidence, colluders: { ...c, mixing: null, accused: c.accused.slice(0, 1) } } })).replace(/\s+/g, '');
    expect(content).toContain(notDecoded);
    expect(content).toContain(single);
    expect(content).not.toContain('식별자만으로는');
  });

  it('prints a file whose preview was omitted (unreadable, a bomb, past the memory limit) with a visible note in place of its picture, the report rendered in full', async () => {
    const content = await text(data('en-US'));
    // both files here have no preview: the note in place of each picture, the report rendered in full
    expect(content.split('No preview available')).toHaveLength(3);
    expect(content).toContain('b'.repeat(64).slice(0, 16));
  });

  it('withholds the watermark text when the caller may not see it, and marks test orders', async () => {
    const content = await text(data('en-US', { watermarkText: null, mode: 'test', original: { role: 'original', fileName: 'a.png', size: null, sha256: null, thumbnailPng: null, replaced: false } }));
    expect(content).toContain('Not disclosed');
    expect(content).toContain('TEST ORDER');
    expect(content).toContain('not retained');
  });

  // Outside review: "Not disclosed" was printed for every status without a text, implying a withheld text where no
  // watermark was identified at all
  it.each(['en-US', 'ko-KR', 'ja-JP'] as const)('%s: says "withheld" only for a detection; otherwise that there is no watermark text', async (locale) => {
    const m = REPORT_MESSAGES[locale];
    const detected = squeezed(await text(data(locale, { watermarkText: null })));
    expect(detected).toContain(squeezed(m.result.watermarkTextWithheld));
    // who may see the text: only the account that embedded the mark (the Japanese restricted only the case)
    expect(detected).toContain({ 'en-US': 'onlytotheaccount', 'ko-KR': '계정에만', 'ja-JP': 'アカウントにのみ' }[locale]);
    expect(detected).not.toContain(squeezed(m.result.watermarkTextNone));
    for (const detectionStatus of ['not_detected', 'inconclusive', 'unsupported', 'error'] as const) {
      const evidence = detectionStatus === 'inconclusive' ? data(locale).evidence : null;
      const method = detectionStatus === 'unsupported' || detectionStatus === 'error' ? 'none' : 'registered';
      const content = squeezed(await text(data(locale, { detectionStatus, watermarkText: null, confidence: 0, method, evidence })));
      expect({ detectionStatus, none: content.includes(squeezed(m.result.watermarkTextNone)) }).toEqual({ detectionStatus, none: true });
      expect({ detectionStatus, withheld: content.includes(squeezed(m.result.watermarkTextWithheld)) }).toEqual({ detectionStatus, withheld: false });
    }
  });

  it.each([
    ['en-US', 'The stored file was replaced after the examination'],
    ['ko-KR', '검사 후 저장된 파일이 교체되었습니다'],
    ['ja-JP', '保存されたファイルが差し替えられました'],
  ] as const)('%s: says when the stored file was replaced after the examination, and only then', async (locale, note) => {
    const base = data(locale);
    const replaced = (await text({ ...base, inspected: { ...base.inspected, replaced: true } })).replace(/\s+/g, '');
    expect(replaced).toContain(note.replace(/\s+/g, ''));
    expect(replaced).toContain('b'.repeat(64));
    expect((await text(base)).replace(/\s+/g, '')).not.toContain(note.replace(/\s+/g, ''));
  });

  it('uses the Japanese design for ja-JP and switches to the Korean font for Hangul', () => {
    expect(localeFont('ja-JP')).toBe('NotoSansJP');
    expect(localeFont('ko-KR')).toBe('NotoSansKR');
    expect(fontForText('유출 사본.png', 'ja-JP')).toBe('NotoSansKR');
    expect(fontForText('流出コピー.png', 'ja-JP')).toBe('NotoSansJP');
  });

  it('leaves ordinary Latin, Korean and Japanese text as one plain string in its font', () => {
    expect(userText('found copy.jpg', 'en-US')).toEqual({ text: 'found copy.jpg', font: 'NotoSansKR', wordBreak: 'break-all', bold: false });
    expect(userText('leak: 홍길동', 'ko-KR', true)).toEqual({ text: 'leak: 홍길동', font: 'NotoSansKR', wordBreak: 'break-all', bold: true });
    expect(userText('流出コピー.png', 'ja-JP')).toEqual({ text: '流出コピー.png', font: 'NotoSansJP', wordBreak: 'break-all', bold: false });
  });

  it('prints an emoji as one code point, in the notation style, never splittable into halves', () => {
    const content = userText('héllo 世界 🎉', 'en-US', true);
    expect(content.text).toEqual([
      { text: 'héllo 世界 ', font: 'NotoSansKR', wordBreak: 'break-all', bold: true },
      { text: '[U+1F389]', font: 'NotoSansKR', bold: true, noWrap: true, style: 'codePoint' },
    ]);
  });

  it('keeps a supplementary-plane character a font has whole (break-all would cut it into two boxes)', () => {
    const content = userText('𠀋.png', 'ja-JP');
    expect(content.text).toEqual([
      { text: '𠀋', font: 'NotoSansJP', bold: false, noWrap: true },
      { text: '.png', font: 'NotoSansJP', wordBreak: 'break-all', bold: false },
    ]);
  });

  // the customer's text as printed: exact, with no empty box (pdf.js reads an undrawn glyph back as U+0000)
  it.each(['ko-KR', 'en-US', 'ja-JP'] as const)('%s: prints characters no font draws as code points, and says so once', async (locale) => {
    const input = data(locale, {
      watermarkText: 'héllo 世界 🎉',
      orderName: 'order 👩‍💻',
      original: { role: 'original', fileName: 'mine 𠀋.png', size: 1234, sha256: 'a'.repeat(64), thumbnailPng: null, replaced: false },
    });
    const content = await text(input);
    const bare = content.replace(/\s+/g, '');
    expect(content).toContain('héllo 世界 [U+1F389]');
    expect(bare).toContain('order[U+1F469][U+200D][U+1F4BB]');
    expect(bare).toContain('mine𠀋.png');
    expect(bare).toContain(REPORT_MESSAGES[locale].codePointNote.replace(/\s+/g, ''));
    expect(content).not.toMatch(/[\u0000\ufffd\u{1f389}\u{1f469}\u{1f4bb}\u200d]/u);
  });

  it('adds no note about code points when every character is drawn', async () => {
    const content = (await text(data('ja-JP'))).replace(/\s+/g, '');
    expect(content).not.toContain(REPORT_MESSAGES['ja-JP'].codePointNote.replace(/\s+/g, ''));
    expect(content).not.toContain('[U+');
  });

  it('groups hashes by eight characters', () => {
    expect(groupedHash('0123456789abcdef')).toBe('01234567 89abcdef');
  });

  it('cuts the customer\'s text by what it prints: a code point notation counts its length, a pair is never halved', () => {
    expect(cutUserText('abc', 3, 'en-US')).toEqual({ kept: 'abc', printed: 3, omitted: 0 });
    // 🎉 prints as [U+1F389] (9 characters): it does not fit in what is left, and is not cut in half
    expect(cutUserText('ab🎉c', 10, 'en-US')).toEqual({ kept: 'ab', printed: 2, omitted: 2 });
    expect(cutUserText('ab🎉c', 12, 'en-US')).toEqual({ kept: 'ab🎉c', printed: 12, omitted: 0 });
    // 𠀋 is drawn (by the Japanese font, even in an English report): one character
    expect(cutUserText('a𠀋b', 2, 'en-US')).toEqual({ kept: 'a𠀋', printed: 2, omitted: 1 });
    expect(cutUserText('\u007f'.repeat(10), 16, 'en-US')).toEqual({ kept: '\u007f\u007f', printed: 16, omitted: 8 });
  });
});
