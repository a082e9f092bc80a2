import { V2OrderDetailView } from '@cp/contracts';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { Observable, tap } from 'rxjs';
import { DataEnvelope } from '../http/data-envelope';
import { successorLink } from './deprecated-route.guard';

/** An order id as the orders service issues it: canonical decimal, at most 20 digits. */
const ISSUED_ORDER_ID = /^(0|[1-9][0-9]{0,19})$/;

/**
 * `GET /api/v2/orders/{orderId}` (spec 9.2): `Link` to its v3 successor, `/api/v3/orders/{orderId}`, on a
 * successful answer only, with the id the orders service answered with. An error answer has no resource whose
 * successor could be named (an unknown id, another account's order, a malformed, percent-encoded or 16 KB path
 * segment): it carries `Deprecation` but no `Link`, so the header never echoes what the client sent.
 */
@Injectable()
export class V2OrderLinkInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler<DataEnvelope<V2OrderDetailView>>): Observable<DataEnvelope<V2OrderDetailView>> {
    const response = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      tap((answer) => {
        const orderId = answer?.data?.orderId;
        if (typeof orderId === 'string' && ISSUED_ORDER_ID.test(orderId)) {
          response.setHeader('Link', successorLink(`/api/v3/orders/${orderId}`));
        }
      }),
    );
  }
}
