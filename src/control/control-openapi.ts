import * as z from 'zod'
import { errorResponseSchema } from '../api/api-schemas.ts'
import type { ControlMethod } from './control-row.ts'
import { paramsOf } from './control-row.ts'
import { controlRows } from './control-surfaces.ts'

/** A schema written out for the document, without the JSON Schema dialect line. */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _, ...written } = z.toJSONSchema(schema, { io, unrepresentable: 'any' })
  return written
}

/** The fields of an object schema, by name; none for another schema. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> {
  return schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {}
}

const errorContent = {
  'application/json': { schema: jsonSchemaOf(errorResponseSchema, 'output') },
}

/** The refusals of every control: what the error bodies say is in their message. */
const errorAnswers = {
  '4XX': {
    description:
      'Refused: 400 says what is wrong, 401 without the control token (when one is set), 403 from another site, 404 for an organisation or a record the mock does not have, 409 for an organisation it has.',
    content: errorContent,
  },
  '5XX': { description: 'A bug of the mock, or a state it cannot keep.', content: errorContent },
}

/** The operation object of a control row: its name, its parameters, body and answers. */
function operationOf(name: string, row: ReturnType<typeof controlRows>[number]['row']) {
  const params = paramsOf(row.path)
  const fields = shapeOf(row.input)
  const inQuery = row.carry === 'query'
  const parameter = (field: string, where: 'path' | 'query') => {
    const schema = fields[field]
    return {
      name: field,
      in: where,
      required: where === 'path' || (schema !== undefined && !schema.safeParse(undefined).success),
      ...(schema?.description && { description: schema.description }),
      schema: schema ? jsonSchemaOf(schema, 'input') : { type: 'string' },
    }
  }
  const parameters = [
    ...params.map((field) => parameter(field, 'path')),
    ...(inQuery
      ? Object.keys(fields)
          .filter((field) => !params.includes(field))
          .map((field) => parameter(field, 'query'))
      : []),
  ]
  const { carry } = row
  const body =
    carry === 'body'
      ? row.input instanceof z.ZodObject && params.length > 0
        ? row.input.omit(Object.fromEntries(params.map((p) => [p, true])) as Record<string, true>)
        : row.input
      : typeof carry === 'object'
        ? fields[carry.bodyOf]
        : undefined
  return {
    // The name of the in-process and client method: `organisations.create`.
    operationId: name,
    summary: row.summary.replace(/`/g, ''),
    description: row.summary,
    ...(row.always && { security: [] }),
    ...(parameters.length > 0 && { parameters }),
    ...(body && {
      requestBody: {
        required: !row.emptyBody,
        content: { 'application/json': { schema: jsonSchemaOf(body, 'input') } },
      },
    }),
    responses: {
      [row.status]:
        row.status === 204 || !row.output
          ? { description: 'Done.' }
          : {
              description: 'Done.',
              content: { 'application/json': { schema: jsonSchemaOf(row.output, 'output') } },
            },
      ...errorAnswers,
    },
  }
}

/**
 * The OpenAPI 3.1 document of the mock's control endpoints (`/__mock/…`), read from the control
 * table: each operation's `operationId` is the name of its in-process and client method
 * (`organisations.create`). Served at `GET /__mock/openapi.json` and written to
 * `control-openapi.json` by `identify-api-mock control-openapi`.
 *
 * @example createControlOpenApiDocument().paths['/__mock/reset'].post.operationId // 'reset'
 */
export function createControlOpenApiDocument() {
  const paths: Record<string, Partial<Record<Lowercase<ControlMethod>, unknown>>> = {}
  for (const { name, row } of controlRows()) {
    const template = row.path.replace(/:(\w+)/g, '{$1}')
    const method = row.method.toLowerCase() as Lowercase<ControlMethod>
    paths[template] = { ...paths[template], [method]: operationOf(name, row) }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'identify-api-mock control endpoints',
      version: '1.0.0',
      description:
        "The test's controls of a running identify-api-mock server: reset, faults, tenants, the journal, answer shapes, webhooks. Not part of the API it imitates. Generated from the mock's control table; connectMockApi and the in-process API call the same operations by their operationId.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:4010', description: 'A local identify-api-mock server.' }],
    security: [{}, { controlToken: [] }],
    paths,
    components: {
      securitySchemes: {
        controlToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <control token>, when the server was started with --control-token.',
        },
      },
    },
  }
}
