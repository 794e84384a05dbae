import { Type } from 'typebox';

export const ClockSchema = Type.Object(
  {
    now: Type.String({ format: 'date-time', description: "Now on the platform's sandbox clock" }),
    advancedBySeconds: Type.Integer({ minimum: 0, description: 'How far the clock is ahead of real time, in whole seconds' }),
  },
  { description: "The platform's sandbox clock" },
);

export const AdvanceClockBody = Type.Object(
  {
    seconds: Type.Optional(Type.Integer({ description: 'Seconds to move the clock forward, at least 1; give this or to' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'The time to move the clock to, later than its now; give this or seconds' })),
  },
  { additionalProperties: false, description: 'Where to move the clock: forward only, at most two years past real time' },
);
