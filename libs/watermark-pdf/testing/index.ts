export { deflatedZeros, FileObject, heapHungryPdf, inflationBombPdf, nestedFormsPdf, objectStreamContent, objectStreamPdf, onePagePdf, pdfFile, zlibWithEndstreamInside } from './hostile-pdf';
