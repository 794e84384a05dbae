import { STATUS_OF_CODE, type ErrorCode, type ErrorStatus } from './error-catalogue.js';

export interface ErrorBody {
  status: number;
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** The one error the HTTP layer renders; its status always follows from its code. */
export class ApiError extends Error {
  readonly status: ErrorStatus;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = STATUS_OF_CODE[code];
  }

  toBody(): ErrorBody {
    return this.details === undefined
      ? { status: this.status, code: this.code, message: this.message }
      : { status: this.status, code: this.code, message: this.message, details: this.details };
  }
}

export function routeNotFound(method: string, url: string): ApiError {
  return new ApiError('REFERENCE_NOT_FOUND', `No operation ${method} ${url.split('?')[0]}`);
}
