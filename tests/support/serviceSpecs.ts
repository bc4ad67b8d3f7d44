/** A service spec with a path parameter, a required query field, a JSON body and a route with neither. */
export const USERS_SPEC = {
  name: 'users',
  description: 'Users and their health',
  routes: [
    {
      method: 'get',
      path: '/users/:id',
      params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } } },
      query: { type: 'object', properties: { verbose: { type: 'boolean' } }, required: ['verbose'] },
      response: {
        schema: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' }, verbose: { type: 'boolean' } }, required: ['id', 'name'] },
      },
      example: { params: { id: 7 }, query: { verbose: true }, response: { id: 1, name: 'Ada', verbose: false } },
    },
    {
      method: 'post',
      path: '/users',
      body: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1 }, tags: { type: 'array', items: { type: 'string' }, maxItems: 4 } },
        required: ['name'],
      },
      response: { status: 201, schema: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id', 'name'] } },
      example: { body: { name: 'Grace', tags: ['a'] }, response: { id: 2, name: 'x' } },
    },
    {
      method: 'get',
      path: '/health',
      response: { schema: { type: 'object', properties: { status: { type: 'string', enum: ['ok', 'degraded'] } }, required: ['status'] } },
      example: { response: { status: 'ok' } },
    },
  ],
} as const;

/** {@link USERS_SPEC} with one more route. */
export function withRoute(route: unknown): { name: string; routes: unknown[] } {
  return { name: USERS_SPEC.name, routes: [...USERS_SPEC.routes, route] };
}
