export { deflatedZeros, FileObject, heapHungryPdf, inflationBombPdf, objectStreamContent, objectStreamPdf, onePagePdf, pdfFile, zlibWithEndstreamInside } from './hostile-pdf';
