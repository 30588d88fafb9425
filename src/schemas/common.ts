// Shape pieces shared by the modules' schemas (and through them the API's and MCP's).
import { Type, type TSchema } from 'typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const DateTime = Type.String({ format: 'date-time' });

/** A path id: any length the router takes; an id that names nothing is the route's 404. */
export const PathId = (description?: string) => Type.String({ minLength: 1, maxLength: 500, ...(description ? { description } : {}) });

