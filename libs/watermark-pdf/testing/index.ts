export { deflatedZeros, heapHungryPdf, inflationBombPdf, onePagePdf } from './hostile-pdf';
