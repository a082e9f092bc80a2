import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PDFDict, PDFName, PDFRef } from 'pdf-lib';
import { loadChecked } from './validate';
import { weakPools } from './weak-pools';
import { pdfFile } from '../testing';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Collections until the finalizers have run (they run after a collection, on a later turn). */
async function collect(): Promise<void> {
  for (let round = 0; round < 5; round++) {
    collectGarbage();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const file = (name: string, object: number): Buffer =>
  pdfFile([
    { n: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { n: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    { n: 3, body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /${name} ${object} 0 R >>` },
  ]);

describe("pdf-lib's pools of names and references", () => {
  it('were found and made weak', () => {
    expect(weakPools).toBe(true);
  });

  it('keep a name and a reference while a document holds them, the same object each time', async () => {
    const doc = await loadChecked(file('CpHeldName', 1_000_001));
    const page = doc.getPage(0).node;
    const value = page.get(PDFName.of('CpHeldName'));
    expect(value).toBe(PDFRef.of(1_000_001));
    await collect();
    expect(page.get(PDFName.of('CpHeldName'))).toBe(PDFRef.of(1_000_001));
    expect(page).toBeInstanceOf(PDFDict);
  });

  it("let a file's names and references go with the file (they were kept for the life of the process)", async () => {
    const held = await (async () => {
      const doc = await loadChecked(file('CpDroppedName', 1_000_002));
      expect(doc.getPage(0).node.get(PDFName.of('CpDroppedName'))).toBe(PDFRef.of(1_000_002));
      return { name: new WeakRef(PDFName.of('CpDroppedName')), ref: new WeakRef(PDFRef.of(1_000_002)) };
    })();
    await collect();
    expect(held.name.deref()).toBeUndefined();
    expect(held.ref.deref()).toBeUndefined();
  });
});
