import { REPORT_DOWNLOAD_EXPIRY_SECONDS, ReportView } from '@cp/contracts';
import { ObjectStorage } from '@cp/storage';
import { Injectable } from '@nestjs/common';
import { reportFileName, toReportView } from './report-policy';
import { ReportState } from '../domain/report';

/** Report resources for clients: a completed report gets a new presigned URL on every call (spec 4.6 rule 2). */
@Injectable()
export class ReportViews {
  constructor(private readonly storage: ObjectStorage) {}

  async view(row: Readonly<ReportState>, orderName: string): Promise<ReportView> {
    let url: string | null = null;
    if (row.status === 'completed' && row.objectBucket && row.objectKey) {
      url = await this.storage.presignGet(row.objectBucket, row.objectKey, REPORT_DOWNLOAD_EXPIRY_SECONDS, reportFileName(orderName, row.locale));
    }
    return toReportView(row, url, REPORT_DOWNLOAD_EXPIRY_SECONDS);
  }
}
