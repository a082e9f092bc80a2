import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { map, Observable } from 'rxjs';

/** Successful API responses carry their payload in `data`. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const url = context.switchToHttp().getRequest<{ url: string }>().url;
    if (!url.startsWith('/api/')) {
      return next.handle();
    }
    return next.handle().pipe(map((data: unknown) => ({ data })));
  }
}
