import { DetectionStatus, ReportLocale } from '@cp/contracts';

/** Every text of a report in one language; the PDF layout is the same for all. */
export interface ReportMessages {
  title: string;
  subtitle: string;
  testOrderNotice: string;
  sections: { order: string; result: string; files: string; verification: string };
  order: {
    orderId: string;
    orderName: string;
    orderType: string;
    orderTypeValue: string;
    createdAt: string;
    completedAt: string;
    retainedUntil: string;
    reportGeneratedAt: string;
    reportId: string;
  };
  files: {
    original: string;
    inspected: string;
    fileName: string;
    size: string;
    sha256: string;
    thumbnail: string;
    notRetained: string;
    noThumbnail: string;
    /** The stored object was replaced after the examination (FileEvidence.replaced). */
    replaced: string;
    /** Under the original: the inspected file was not matched to it (see `result.originalMatch`). */
    notMatched: string;
    bytes: (formatted: string) => string;
  };
  result: {
    detectionStatus: string;
    meaning: string;
    watermarkText: string;
    /** Only for `detected`: a watermark was identified, but its text is not for this caller. */
    watermarkTextWithheld: string;
    /**
     * Every other status (not detected, inconclusive, unsupported, error): no watermark was identified, so there is
     * no text to withhold; the "not disclosed" sentence would imply one exists.
     */
    watermarkTextNone: string;
    confidence: string;
    confidenceNotApplicable: string;
    method: string;
    statuses: Record<DetectionStatus, { label: string; meaning: string }>;
    methods: Record<string, string>;
    unknownMethod: (raw: string) => string;
    /**
     * Outside review: said when the detection used no alignment with the original (method `blind`), which the report
     * still lists as the reference: a watermark read, or (not detected) no alignment found at all.
     */
    originalMatch: string;
    notMatchedMarkRead: string;
    notMatchedNoAlignment: string;
    /**
     * Outside review (legal filing): what the result does not show, for the statuses a reader could over-read
     * (a detection read as proof of who leaked, a not-detected or inconclusive result read as a clean file).
     */
    limits: string;
    limitsValues: Partial<Record<DetectionStatus, string>>;
  };
  /** What a detection rests on (issue 16): measured counts and the code's design bound, never a bare "confidence". */
  evidence: {
    checkBits: string;
    checkBitsValue: (matched: number, total: number, payloadBits: number) => string;
    codedBits: string;
    codedBitsValue: (agreeing: string, total: string, corrected: string) => string;
    margin: string;
    marginValue: (measured: string, threshold: string) => string;
    chance: string;
    chanceValue: (oneIn: string, attempts: number, checkBits: number) => string;
    transform: string;
    transformNone: string;
    transformBlind: string;
    turn: (degrees: string, clockwise: boolean) => string;
    transformValue: (parts: { rotation: string | null; scale: string | null; mirrored: boolean; visible: string | null; perspective: boolean }) => string;
    page: string;
  };
  /** Candidate tracing (issue 36): every recipient accused of contributing to a copy several recipients combined. */
  colluders: {
    title: string;
    intro: (tested: string, accused: number) => string;
    candidatesTested: string;
    mixing: string;
    mixingValues: Record<'averaging' | 'region-splicing' | 'undetermined' | 'single', string>;
    recipient: string;
    order: string;
    score: string;
    bound: string;
    regions: string;
    boundValue: (oneIn: string) => string;
    method: (level: string, threshold: string) => string;
    severalText: string;
    notDecoded: string;
    notDecodedOne: string;
  };
  verification: {
    intro: string;
    issuer: string;
    algorithm: string;
    algorithmValue: string;
    howTo: string;
    integrity: string;
  };
  notAvailable: string;
  /** Printed only when the customer's text has a character the fonts cannot draw. */
  codePointNote: string;
  /** The footer's page number: `{current}` and `{total}` are replaced when the page is laid out. */
  page: string;
}

const en: ReportMessages = {
  title: 'Watermark Detection Report',
  subtitle: 'Result of an invisible-watermark inspection, prepared for filing',
  testOrderNotice: 'TEST ORDER: made with a test API key. The result is simulated and the files were not kept; this document is not evidence.',
  sections: { order: '1. Order', result: '2. Detection result', files: '3. Files examined', verification: '4. Verification' },
  order: {
    orderId: 'Order ID',
    orderName: 'Order name',
    orderType: 'Order type',
    orderTypeValue: 'Watermark extraction (detection)',
    createdAt: 'Order created',
    completedAt: 'Inspection completed',
    retainedUntil: 'Files retained until',
    reportGeneratedAt: 'Report generated',
    reportId: 'Report reference',
  },
  files: {
    original: 'Original file (reference)',
    inspected: 'Inspected file',
    fileName: 'File name',
    size: 'Size',
    sha256: 'SHA-256',
    thumbnail: 'Thumbnail',
    notRetained: 'not retained',
    noThumbnail: 'No preview available',
    replaced: 'The stored file was replaced after the examination. The size and SHA-256 shown are those of the file examined; no preview is shown.',
    notMatched: 'Not matched to the inspected file (see section 2).',
    bytes: (formatted) => `${formatted} bytes`,
  },
  result: {
    detectionStatus: 'Detection status',
    meaning: 'Meaning',
    watermarkText: 'Watermark text',
    watermarkTextWithheld: 'Not disclosed: shown only to the account that embedded the watermark, when exactly one issuance record matches.',
    watermarkTextNone: 'None: no watermark was identified in the inspected file, so there is no watermark text.',
    confidence: 'Signal agreement',
    confidenceNotApplicable: 'not applicable',
    method: 'Method',
    statuses: {
      detected: { label: 'Detected', meaning: 'An invisible watermark was found in the inspected file.' },
      not_detected: { label: 'Not detected', meaning: 'The inspected file was fully checked and no watermark was found.' },
      inconclusive: { label: 'Inconclusive', meaning: 'A possible watermark was found, but below the confidence threshold required to report it as detected.' },
      unsupported: { label: 'Unsupported', meaning: 'The inspected file could not be processed.' },
      error: { label: 'Error', meaning: 'Detection failed; this is not the same as finding no watermark.' },
    },
    methods: {
      registered: 'The inspected file was aligned with the original file (registration), then the watermark signal was read from the aligned image.',
      blind: 'The watermark signal was read directly from the inspected file, without aligning it with the original.',
      none: 'No detection method could be applied to the inspected file.',
      simulated: 'Simulated result of a test order; no detection was run.',
      pdf: 'The pages of the inspected PDF were matched with the pages of the original PDF, then the watermark signal was read from the matched page renderings.',
    },
    unknownMethod: (raw) => `Detection method "${raw}".`,
    originalMatch: 'Match with the original file',
    notMatchedMarkRead:
      'Not matched. The inspected file was not matched to the original file listed in this report: no alignment with it was used, and the watermark was read from the inspected file alone. This report does not show that the inspected file derives from that original file.',
    notMatchedNoAlignment:
      'Not matched. No alignment of the inspected file with the original file listed in this report was found, and the inspected file alone was searched for a watermark. This report does not show that the inspected file derives from that original file.',
    limits: 'Limits of the method',
    limitsValues: {
      detected:
        'A detected watermark identifies the copy it was issued in (the recipient its watermark text names); it does not by itself show who made or shared the inspected copy.',
      not_detected:
        'Not detected does not show that the inspected file was not made from a watermarked copy: after strong edits (a strong perspective distortion, or strong tone changes combined with downscaling and compression) a watermark may not be readable.',
      inconclusive: 'Inconclusive is neither a detection nor a clean result: it names no recipient and does not show that the file carries no watermark.',
    },
  },
  evidence: {
    checkBits: 'Check bits matched',
    checkBitsValue: (matched, total, payloadBits) =>
      `${matched} of ${total}: the decoded ${payloadBits}-bit identifier carries a ${total}-bit keyed check (HMAC-SHA256), and every check bit matched.`,
    codedBits: 'Coded bits agreeing',
    codedBitsValue: (agreeing, total, corrected) => `${agreeing} of ${total} coded bits agreed with the decoded code word before error correction; the error-correcting code corrected the other ${corrected}.`,
    margin: 'Error-correction margin',
    marginValue: (measured, threshold) => `Soft agreement ${measured}, against a decision threshold of ${threshold}.`,
    chance: 'Chance of a false match',
    chanceValue: (oneIn, attempts, checkBits) =>
      `At most 1 in ${oneIn} per inspection. An unmarked file, a file marked with another key, or a copy issued to another recipient passes the ${checkBits}-bit check by chance with probability 2^-${checkBits} per decoding attempt, and this inspection allowed at most ${attempts} attempts. This is an upper bound from the code's design, not a measured rate.`,
    transform: 'Edit found by registration',
    transformNone: 'None: the inspected file has the geometry of the original.',
    transformBlind: 'Not measured: the mark was read without aligning the file with the original.',
    turn: (degrees, clockwise) => `rotated ${degrees} ${clockwise ? 'clockwise' : 'counter-clockwise'}`,
    transformValue: ({ rotation, scale, mirrored, visible, perspective }) =>
      [
        rotation ?? 'not rotated',
        scale ? `scaled to ${scale}` : 'original size',
        mirrored ? 'mirrored' : 'not mirrored',
        visible ? `${visible} of the original visible (cropped)` : 'not cropped',
        perspective ? 'with a perspective distortion' : null,
      ]
        .filter((p): p is string => p !== null)
        .join(', ')
        .replace(/^./, (c) => c.toUpperCase()) + '.',
    page: 'Page read',
  },
  colluders: {
    title: 'Recipients who contributed (candidate tracing)',
    intro: (tested, accused) =>
      `Every recipient this account issued the same original to (${tested}) was tested as a possible contributor to the inspected copy: ${accused} ${accused === 1 ? 'was' : 'were'} found to have contributed.`,
    candidatesTested: 'Candidates tested',
    mixing: 'Mixing found',
    mixingValues: {
      averaging: 'Averaging: the copies were combined pixel by pixel (mean or median); every accused mark is present across the picture.',
      'region-splicing': 'Splicing by region: different parts of the picture come from different copies.',
      undetermined: 'Not determined: too few regions carry a clear mark to tell.',
      single: 'One recipient only.',
    },
    recipient: 'Recipient (watermark text)',
    order: 'Issued in order',
    score: 'Score (z)',
    bound: 'Chance bound',
    regions: 'Regions led',
    boundValue: (oneIn) => `1 in ${oneIn}`,
    method: (level, threshold) =>
      `Each score says, as a z-value, how unlikely the copy's observations are under the hypothesis "this recipient did not contribute": two tests are made (the mark's two layers summed, and both layers jointly), and a third on the joint least-squares estimate of the mark when the layers alone did not decode; each is held to its share of the level (a half or a third), and the smallest of their p-values times their number is the Gaussian tail of the score. A non-contributor's score passes any value with at most the Gaussian tail's probability (measured on unmarked copies and on identifiers never issued). A recipient is named only when the Gaussian tail of its score, multiplied by the candidates tested and the rounds of the search, is at most 1 in ${level} (the bound of a single-recipient detection); with these candidates that means a score of at least ${threshold}. The bound extrapolates the measured null distribution; it is not a measured rate. A recipient who contributed only a small share of the copy may not be named.`,
    severalText: 'Several recipients contributed: no single watermark text. Each is listed under "Recipients who contributed".',
    notDecoded: 'No single identifier was decoded: the copy carries several recipients\' marks (see "Recipients who contributed").',
    notDecodedOne: 'No identifier was decoded on its own: the recipient was found by testing every recipient of this original (see "Recipients who contributed").',
  },
  verification: {
    intro: 'This report was generated automatically from the stored order record and the stored files.',
    issuer: 'Issued by',
    algorithm: 'Hash algorithm',
    algorithmValue: 'SHA-256 over the complete file bytes, shown in hexadecimal',
    howTo: 'To verify, compute the SHA-256 of your copies of the files (for example "sha256sum <file>" or "certutil -hashfile <file> SHA256") and compare with the values below. Identical values prove the files are byte-for-byte the ones examined.',
    integrity: 'The service keeps the SHA-256 of this PDF with the report record; the order ID and report reference identify it, and the report\'s status (GET /api/v3/orders/{orderId}/reports/{locale}) returns it as download.sha256 while the report can be downloaded.',
  },
  notAvailable: 'not available',
  codePointNote: 'Characters the report\'s fonts cannot draw are shown in blue as their Unicode code point, e.g. [U+1F389].',
  page: 'Page {current} of {total}',
};

const ko: ReportMessages = {
  title: '워터마크 검출 보고서',
  subtitle: '비가시성 워터마크 검사 결과 (제출·보관용)',
  testOrderNotice: '테스트 주문: 테스트 API 키로 생성된 주문입니다. 결과는 모의 결과이며 파일은 보관되지 않았습니다. 이 문서는 증거 자료가 아닙니다.',
  sections: { order: '1. 주문 정보', result: '2. 검출 결과', files: '3. 검사한 파일', verification: '4. 검증 정보' },
  order: {
    orderId: '주문 ID',
    orderName: '주문 이름',
    orderType: '주문 유형',
    orderTypeValue: '워터마크 추출(검출)',
    createdAt: '주문 생성 일시',
    completedAt: '검사 완료 일시',
    retainedUntil: '파일 보관 기한',
    reportGeneratedAt: '보고서 생성 일시',
    reportId: '보고서 참조 번호',
  },
  files: {
    original: '원본 파일(기준)',
    inspected: '검사 대상 파일',
    fileName: '파일 이름',
    size: '크기',
    sha256: 'SHA-256',
    thumbnail: '미리보기',
    notRetained: '보관되지 않음',
    noThumbnail: '미리보기 없음',
    replaced: '검사 후 저장된 파일이 교체되었습니다. 표시된 크기와 SHA-256은 검사한 파일의 값이며, 미리보기는 표시하지 않습니다.',
    notMatched: '검사 대상 파일과 대응되지 않았습니다(2항 참조).',
    bytes: (formatted) => `${formatted}바이트`,
  },
  result: {
    detectionStatus: '검출 상태',
    meaning: '의미',
    watermarkText: '워터마크 텍스트',
    watermarkTextWithheld: '공개되지 않음: 워터마크를 삽입한 계정에만, 일치하는 발급 기록이 정확히 하나일 때 표시됩니다.',
    watermarkTextNone: '없음: 검사 대상 파일에서 식별된 워터마크가 없으므로 워터마크 텍스트도 없습니다.',
    confidence: '신호 일치도',
    confidenceNotApplicable: '해당 없음',
    method: '검출 방법',
    statuses: {
      detected: { label: '검출됨', meaning: '검사 대상 파일에서 비가시성 워터마크가 발견되었습니다.' },
      not_detected: { label: '검출되지 않음', meaning: '검사 대상 파일 전체를 확인했으며 워터마크가 발견되지 않았습니다.' },
      inconclusive: { label: '판정 불가', meaning: '워터마크로 보이는 신호가 발견되었으나 검출로 판정하기 위한 신뢰도 기준에 미치지 못했습니다.' },
      unsupported: { label: '지원되지 않음', meaning: '검사 대상 파일을 처리할 수 없었습니다.' },
      error: { label: '오류', meaning: '검출 과정이 실패했습니다. 워터마크가 없다는 뜻이 아닙니다.' },
    },
    methods: {
      registered: '검사 대상 파일을 원본 파일에 맞추어 정렬(정합)한 뒤, 정렬된 이미지에서 워터마크 신호를 읽었습니다.',
      blind: '원본 파일과 정렬하지 않고 검사 대상 파일에서 직접 워터마크 신호를 읽었습니다.',
      none: '검사 대상 파일에 적용할 수 있는 검출 방법이 없었습니다.',
      simulated: '테스트 주문의 모의 결과이며, 실제 검출은 수행되지 않았습니다.',
      pdf: '검사 대상 PDF의 페이지를 원본 PDF의 페이지와 대응시킨 뒤, 대응된 페이지 렌더링에서 워터마크 신호를 읽었습니다.',
    },
    unknownMethod: (raw) => `검출 방법 "${raw}".`,
    originalMatch: '원본 파일과의 대응',
    notMatchedMarkRead:
      '대응되지 않음. 검사 대상 파일은 이 보고서에 기재된 원본 파일과 대응되지 않았습니다. 원본 파일과의 정렬은 사용되지 않았으며, 워터마크는 검사 대상 파일만으로 읽었습니다. 이 보고서는 검사 대상 파일이 해당 원본 파일에서 유래했음을 보여 주지 않습니다.',
    // "was searched for a watermark": "워터마크를 찾았습니다" also reads "found the watermark", said of a not-detected file
    notMatchedNoAlignment:
      '대응되지 않음. 검사 대상 파일을 이 보고서에 기재된 원본 파일에 정렬할 수 있는 위치를 찾지 못했으며, 검사 대상 파일만을 대상으로 워터마크를 탐색했습니다. 이 보고서는 검사 대상 파일이 해당 원본 파일에서 유래했음을 보여 주지 않습니다.',
    limits: '방법의 한계',
    limitsValues: {
      detected: '검출된 워터마크는 그 워터마크가 발급된 사본(워터마크 텍스트가 가리키는 수령인)을 식별할 뿐, 검사 대상 사본을 누가 만들거나 공유했는지를 그 자체로 보여 주지는 않습니다.',
      not_detected:
        '검출되지 않음은 검사 대상 파일이 워터마크가 삽입된 사본에서 만들어지지 않았음을 보여 주지 않습니다. 강한 편집(강한 원근 왜곡, 또는 축소·압축과 결합된 강한 색조 변경) 후에는 워터마크를 읽지 못할 수 있습니다.',
      inconclusive: '판정 불가는 검출도, 워터마크가 없다는 결과도 아닙니다. 수령인을 특정하지 않으며 파일에 워터마크가 없음을 보여 주지도 않습니다.',
    },
  },
  evidence: {
    checkBits: '일치한 검사 비트',
    checkBitsValue: (matched, total, payloadBits) =>
      `${total}개 중 ${matched}개: 복호된 ${payloadBits}비트 식별자에는 키로 생성한 ${total}비트 검사값(HMAC-SHA256)이 붙어 있으며, 검사 비트가 모두 일치했습니다.`,
    codedBits: '일치한 부호화 비트',
    // "before error correction" qualifies the agreement, as in English: placed before "복호된" it read as a code word
    // decoded before error correction
    codedBitsValue: (agreeing, total, corrected) => `오류 정정 전 기준으로 부호화 비트 ${total}개 중 ${agreeing}개가 복호된 부호어와 일치했으며, 나머지 ${corrected}개는 오류 정정 부호가 정정했습니다.`,
    margin: '오류 정정 여유',
    marginValue: (measured, threshold) => `연판정 일치도 ${measured} (판정 기준 ${threshold}).`,
    chance: '우연히 일치할 확률',
    chanceValue: (oneIn, attempts, checkBits) =>
      `검사 1회당 최대 ${oneIn}분의 1. 워터마크가 없는 파일, 다른 키로 삽입된 파일 또는 다른 수령인에게 발급된 사본이 ${checkBits}비트 검사를 우연히 통과할 확률은 복호 시도 1회당 2^-${checkBits}이며, 이번 검사는 최대 ${attempts}회 시도했습니다. 이 값은 측정값이 아니라 부호 설계에서 나온 상한입니다.`,
    transform: '정합으로 찾은 편집',
    transformNone: '없음: 검사 대상 파일은 원본과 같은 기하 구조입니다.',
    transformBlind: '측정되지 않음: 원본과 정렬하지 않고 워터마크를 읽었습니다.',
    turn: (degrees, clockwise) => `${clockwise ? '시계 방향' : '반시계 방향'}으로 ${degrees} 회전`,
    transformValue: ({ rotation, scale, mirrored, visible, perspective }) =>
      [
        rotation ?? '회전 없음',
        scale ? `${scale} 크기로 조정` : '원래 크기',
        mirrored ? '좌우 또는 상하 반전됨' : '반전 없음',
        visible ? `원본의 ${visible}만 보임(잘라냄)` : '잘라내지 않음',
        perspective ? '원근 왜곡 있음' : null,
      ]
        .filter((p): p is string => p !== null)
        .join(', ') + '.',
    page: '읽은 페이지',
  },
  colluders: {
    // "contributed" to the copy, as in English: "유출에 참여한" (took part in the leak) asserted a wrongdoing the method
    // does not show (see the limits: a mark does not show who made or shared a copy)
    title: '기여한 수령인 (후보 추적)',
    intro: (tested, accused) => `이 계정이 같은 원본을 발급한 모든 수령인(${tested}명)을 검사 대상 사본에 기여했을 가능성이 있는지 각각 검사했습니다. ${accused}명이 기여한 것으로 판정되었습니다.`,
    candidatesTested: '검사한 후보',
    mixing: '발견된 혼합 방식',
    mixingValues: {
      averaging: '평균: 사본들이 픽셀 단위로 합쳐졌습니다(평균 또는 중앙값). 지목된 모든 워터마크가 그림 전체에 있습니다.',
      'region-splicing': '영역별 이어 붙이기: 그림의 부분마다 서로 다른 사본에서 왔습니다.',
      undetermined: '판단할 수 없음: 뚜렷한 워터마크가 있는 영역이 너무 적습니다.',
      single: '수령인 한 명뿐입니다.',
    },
    recipient: '수령인(워터마크 텍스트)',
    order: '발급 주문',
    score: '점수(z)',
    bound: '우연 상한',
    regions: '주도 영역 비율',
    boundValue: (oneIn) => `${oneIn}분의 1`,
    method: (level, threshold) =>
      `각 점수는 "이 수령인은 기여하지 않았다"는 가설 아래에서 사본의 관측값이 얼마나 드문지를 z값으로 나타냅니다. 두 가지 검정(워터마크의 두 층을 합한 검정과 두 층을 함께 보는 검정)을 하고, 두 층만으로 복호되지 않았을 때는 워터마크의 결합 최소제곱 추정치에 대한 세 번째 검정을 합니다. 각 검정은 수준을 검정 수로 나눈 몫(절반 또는 3분의 1)으로 수행하며, p값 중 가장 작은 값에 검정 수를 곱한 값이 점수의 정규분포 꼬리 확률입니다. 기여하지 않은 수령인의 점수가 어떤 값을 넘을 확률은 그 값의 정규분포 꼬리 확률 이하입니다(워터마크가 없는 사본과 발급되지 않은 식별자로 측정). 점수의 정규분포 꼬리 확률에 검사한 후보 수와 탐색 단계 수를 곱한 값이 ${level}분의 1 이하일 때만(수령인 한 명을 검출할 때의 상한과 같음) 수령인을 지목합니다. 이번 후보 수에서는 점수 ${threshold} 이상입니다. 이 상한은 측정된 귀무분포를 외삽한 값이며 측정된 비율이 아닙니다. 사본의 작은 부분만 기여한 수령인은 지목되지 않을 수 있습니다.`,
    severalText: '여러 수령인이 기여했습니다: 단일 워터마크 텍스트는 없습니다. 각 수령인은 "기여한 수령인"에 나열됩니다.',
    notDecoded: '단일 식별자는 복호되지 않았습니다: 사본에 여러 수령인의 워터마크가 함께 있습니다("기여한 수령인" 참조).',
    // "no identifier was decoded on its own": "식별자만으로는 복호되지 않았습니다" said something was not decoded from the
    // identifier alone
    notDecodedOne: '어떤 식별자도 단독으로 복호되지 않았습니다: 이 원본의 모든 수령인을 검사하여 수령인을 찾았습니다("기여한 수령인" 참조).',
  },
  verification: {
    intro: '이 보고서는 저장된 주문 기록과 저장된 파일로부터 자동으로 생성되었습니다.',
    issuer: '발행 주체',
    algorithm: '해시 알고리즘',
    algorithmValue: '파일 전체 바이트에 대한 SHA-256 (16진수 표기)',
    howTo: '검증하려면 보유하신 파일의 SHA-256 값을 계산하여(예: "sha256sum <파일>" 또는 "certutil -hashfile <파일> SHA256") 아래 값과 비교하십시오. 값이 같으면 검사한 파일과 바이트 단위로 동일한 파일입니다.',
    integrity: '서비스는 이 PDF의 SHA-256 값을 보고서 기록과 함께 보관하며, 주문 ID와 보고서 참조 번호로 식별됩니다. 보고서를 내려받을 수 있는 동안 보고서 상태 조회(GET /api/v3/orders/{orderId}/reports/{locale})는 이 값을 download.sha256으로 반환합니다.',
  },
  notAvailable: '정보 없음',
  codePointNote: '보고서 글꼴로 표시할 수 없는 문자는 파란색 유니코드 코드 포인트로 표시됩니다(예: [U+1F389]).',
  page: '{total}쪽 중 {current}쪽',
};

const ja: ReportMessages = {
  title: '電子透かし検出レポート',
  subtitle: '不可視電子透かし検査の結果（提出・保管用）',
  testOrderNotice: 'テスト注文：テスト用 API キーで作成された注文です。結果は模擬結果であり、ファイルは保管されていません。この文書は証拠資料ではありません。',
  sections: { order: '1. 注文情報', result: '2. 検出結果', files: '3. 検査したファイル', verification: '4. 検証情報' },
  order: {
    orderId: '注文 ID',
    orderName: '注文名',
    orderType: '注文の種類',
    orderTypeValue: '電子透かしの抽出（検出）',
    createdAt: '注文作成日時',
    completedAt: '検査完了日時',
    retainedUntil: 'ファイル保管期限',
    reportGeneratedAt: 'レポート作成日時',
    reportId: 'レポート参照番号',
  },
  files: {
    original: '元ファイル（基準）',
    inspected: '検査対象ファイル',
    fileName: 'ファイル名',
    size: 'サイズ',
    sha256: 'SHA-256',
    thumbnail: 'サムネイル',
    notRetained: '保管されていません',
    noThumbnail: 'プレビューなし',
    replaced: '検査の後、保存されたファイルが差し替えられました。表示したサイズと SHA-256 は検査したファイルの値で、プレビューは表示しません。',
    notMatched: '検査対象ファイルとは対応付けられていません（2 を参照）。',
    bytes: (formatted) => `${formatted} バイト`,
  },
  result: {
    detectionStatus: '検出ステータス',
    meaning: '意味',
    watermarkText: '電子透かしテキスト',
    // "shown only to the account": "アカウントに対し…場合にのみ" restricted the case, not who may see the text
    watermarkTextWithheld: '非開示：電子透かしを埋め込んだアカウントにのみ、一致する発行記録がちょうど 1 件の場合に表示されます。',
    watermarkTextNone: 'なし：検査対象ファイルから電子透かしは特定されなかったため、電子透かしテキストはありません。',
    confidence: '信号一致度',
    confidenceNotApplicable: '該当なし',
    method: '検出方法',
    statuses: {
      detected: { label: '検出', meaning: '検査対象ファイルから不可視の電子透かしが見つかりました。' },
      not_detected: { label: '未検出', meaning: '検査対象ファイル全体を確認しましたが、電子透かしは見つかりませんでした。' },
      inconclusive: { label: '判定不能', meaning: '電子透かしと思われる信号が見つかりましたが、検出と判定するための信頼度の基準に達しませんでした。' },
      unsupported: { label: '非対応', meaning: '検査対象ファイルを処理できませんでした。' },
      error: { label: 'エラー', meaning: '検出処理が失敗しました。電子透かしがないという意味ではありません。' },
    },
    methods: {
      registered: '検査対象ファイルを元ファイルに位置合わせ（レジストレーション）した後、位置合わせした画像から電子透かし信号を読み取りました。',
      blind: '元ファイルとの位置合わせを行わず、検査対象ファイルから直接電子透かし信号を読み取りました。',
      none: '検査対象ファイルに適用できる検出方法がありませんでした。',
      simulated: 'テスト注文の模擬結果であり、実際の検出は行われていません。',
      pdf: '検査対象PDFの各ページを原本PDFのページと照合し、照合したページの描画から透かし信号を読み取りました。',
    },
    unknownMethod: (raw) => `検出方法「${raw}」。`,
    originalMatch: '元ファイルとの対応',
    notMatchedMarkRead:
      '対応なし。検査対象ファイルは、このレポートに記載の元ファイルと対応付けられませんでした。元ファイルとの位置合わせは用いられず、電子透かしは検査対象ファイルのみから読み取りました。このレポートは、検査対象ファイルがその元ファイルから作られたことを示すものではありません。',
    notMatchedNoAlignment:
      '対応なし。検査対象ファイルをこのレポートに記載の元ファイルに位置合わせできる位置は見つからず、電子透かしは検査対象ファイルのみを対象に探しました。このレポートは、検査対象ファイルがその元ファイルから作られたことを示すものではありません。',
    limits: '手法の限界',
    limitsValues: {
      detected: '検出された電子透かしは、それが発行されたコピー（電子透かしテキストが示す受取人）を特定するものであり、検査対象のコピーを誰が作成・共有したかをそれ自体で示すものではありません。',
      not_detected:
        '未検出は、検査対象ファイルが電子透かし入りのコピーから作られていないことを示すものではありません。強い編集（強い遠近の歪み、または縮小・圧縮を伴う強い色調の変更）の後では、電子透かしを読み取れないことがあります。',
      inconclusive: '判定不能は検出でも、電子透かしがないという結果でもありません。受取人を特定せず、ファイルに電子透かしがないことも示しません。',
    },
  },
  evidence: {
    checkBits: '一致した検査ビット',
    checkBitsValue: (matched, total, payloadBits) =>
      `${total} 個中 ${matched} 個：復号した ${payloadBits} ビットの識別子には鍵付きの ${total} ビット検査値（HMAC-SHA256）が付いており、検査ビットはすべて一致しました。`,
    codedBits: '一致した符号化ビット',
    // "before error correction" qualifies the agreement, as in English: placed before "復号した" it read as a code word
    // decoded before error correction
    codedBitsValue: (agreeing, total, corrected) => `誤り訂正の前の時点で、符号化ビット ${total} 個中 ${agreeing} 個が復号した符号語と一致し、残りの ${corrected} 個は誤り訂正符号が訂正しました。`,
    margin: '誤り訂正の余裕',
    marginValue: (measured, threshold) => `軟判定一致度 ${measured}（判定基準 ${threshold}）。`,
    chance: '偶然一致する確率',
    chanceValue: (oneIn, attempts, checkBits) =>
      `検査 1 回あたり最大 ${oneIn} 分の 1。電子透かしのないファイル、別の鍵で埋め込まれたファイル、または別の受取人に発行されたコピーが ${checkBits} ビットの検査を偶然通過する確率は復号試行 1 回あたり 2^-${checkBits} で、今回の検査の試行は最大 ${attempts} 回でした。これは測定値ではなく、符号の設計から求めた上限です。`,
    transform: '位置合わせで見つかった編集',
    transformNone: 'なし：検査対象ファイルは元ファイルと同じ幾何形状です。',
    transformBlind: '測定なし：元ファイルと位置合わせせずに電子透かしを読み取りました。',
    turn: (degrees, clockwise) => `${clockwise ? '時計回り' : '反時計回り'}に ${degrees} 回転`,
    transformValue: ({ rotation, scale, mirrored, visible, perspective }) =>
      [
        rotation ?? '回転なし',
        scale ? `${scale} に拡大縮小` : '元のサイズ',
        mirrored ? '鏡像反転あり' : '鏡像反転なし',
        visible ? `元ファイルの ${visible} が見える（切り抜き）` : '切り抜きなし',
        perspective ? '遠近のゆがみあり' : null,
      ]
        .filter((p): p is string => p !== null)
        .join('、') + '。',
    page: '読み取ったページ',
  },
  colluders: {
    // "contributed" to the copy, as in English: "流出に関与した" (involved in the leak) asserted a wrongdoing the method
    // does not show (see the limits: a mark does not show who made or shared a copy)
    title: '関与した受取人（候補の追跡）',
    intro: (tested, accused) => `このアカウントが同じ元ファイルを発行したすべての受取人（${tested} 件）について、検査対象のコピーに関与した可能性をそれぞれ検査しました。${accused} 件が関与したと判定されました。`,
    candidatesTested: '検査した候補',
    mixing: '見つかった合成の種類',
    mixingValues: {
      averaging: '平均：コピーが画素ごとに合成されています（平均または中央値）。指摘されたすべての透かしが画像全体にあります。',
      'region-splicing': '領域ごとのつなぎ合わせ：画像の部分ごとに別のコピーから来ています。',
      undetermined: '判定不能：明確な透かしのある領域が少なすぎます。',
      single: '受取人は 1 件のみです。',
    },
    recipient: '受取人（電子透かしテキスト）',
    order: '発行した注文',
    score: 'スコア（z）',
    bound: '偶然の上限',
    regions: '優勢な領域の割合',
    boundValue: (oneIn) => `${oneIn} 分の 1`,
    // the last limitation as in English, "only a small share": "ごく一部" (a tiny part) narrowed who may be missed
    method: (level, threshold) =>
      `各スコアは、「この受取人は関与していない」という仮説のもとでコピーの観測がどれほど起こりにくいかを z 値で表したものです。2 つの検定（透かしの 2 層の和による検定と、2 層を同時に見る検定）を行い、2 層だけで復号できなかったときは透かしの結合最小二乗推定に対する 3 つ目の検定を行います。各検定は水準を検定の数で分けた分（半分または 3 分の 1）で行い、p 値のうち最小のものに検定の数を掛けた値がスコアの正規分布の裾の確率です。関与していない受取人のスコアがある値を超える確率は、その値の正規分布の裾の確率以下です（透かしのないコピーと発行されていない識別子で測定）。スコアの正規分布の裾の確率に検査した候補数と探索の段数を掛けた値が ${level} 分の 1 以下（受取人 1 件を検出するときの上限と同じ）の場合にのみ受取人を指摘します。今回の候補数ではスコア ${threshold} 以上です。この上限は測定した帰無分布を外挿したもので、測定された割合ではありません。コピーのうち小さな割合にしか関与していない受取人は、指摘されないことがあります。`,
    severalText: '複数の受取人が関与しています：単一の電子透かしテキストはありません。各受取人は「関与した受取人」に記載されています。',
    notDecoded: '単一の識別子は復号されませんでした：コピーには複数の受取人の透かしが含まれています（「関与した受取人」を参照）。',
    notDecodedOne: '識別子単独では復号されませんでした：この元ファイルのすべての受取人を検査して受取人を特定しました（「関与した受取人」を参照）。',
  },
  verification: {
    intro: 'このレポートは、保存された注文記録と保存されたファイルから自動的に作成されました。',
    issuer: '発行者',
    algorithm: 'ハッシュアルゴリズム',
    algorithmValue: 'ファイル全体のバイト列に対する SHA-256（16 進数表記）',
    howTo: '検証するには、お手元のファイルの SHA-256 を計算し（例：「sha256sum <ファイル>」または「certutil -hashfile <ファイル> SHA256」）、下記の値と比較してください。値が一致すれば、検査したファイルとバイト単位で同一です。',
    integrity: 'サービスはこの PDF の SHA-256 をレポート記録とともに保管しており、注文 ID とレポート参照番号で識別されます。レポートをダウンロードできる間、レポートの状態の取得（GET /api/v3/orders/{orderId}/reports/{locale}）はこの値を download.sha256 として返します。',
  },
  notAvailable: '情報なし',
  codePointNote: 'レポートのフォントで表示できない文字は、青字の Unicode コードポイントで示されます（例：[U+1F389]）。',
  page: '{current} / {total} ページ',
};

export const REPORT_MESSAGES: Record<ReportLocale, ReportMessages> = { 'en-US': en, 'ko-KR': ko, 'ja-JP': ja };

/** Dates in the report's language, always with the UTC offset spelled out (a filed document must be unambiguous). */
export function formatDate(value: string | Date | null, locale: ReportLocale): string | null {
  if (value === null) {
    return null;
  }
  const date = typeof value === 'string' ? new Date(value) : value;
  const formatted = new Intl.DateTimeFormat(locale, {
    timeZone: 'UTC',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(date);
  return `${formatted} UTC (${date.toISOString()})`;
}

export function formatBytes(size: number, locale: ReportLocale): string {
  return new Intl.NumberFormat(locale).format(size);
}
