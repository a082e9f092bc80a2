export { deflatedZeros, heapHungryPdf, inflationBombPdf, objectStreamContent, objectStreamPdf, onePagePdf, zlibWithEndstreamInside } from './hostile-pdf';
