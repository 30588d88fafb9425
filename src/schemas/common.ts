// Shape pieces shared by the modules' schemas (and through them the API's and MCP's).
import { Type, type TSchema } from 'typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const DateTime = Type.String({ format: 'date-time' });

/** A path id: any length the router takes; an id that names nothing is the route's 404. */
export const PathId = (description?: string) => Type.String({ minLength: 1, maxLength: 500, ...(description ? { description } : {}) });

/** The query of a paged list: a page size and the previous page's `nextToken`. */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'nextToken of the previous page' })),
};
