// The restricted schema of MCP form elicitation (flat objects of primitive fields), checked the
// same way wherever an answer is made: a server policy filling defaults, or a person's answer.

/**
 * The first way a person's accepted `content` breaks the requested schema (a field missing that is
 * required, a field not asked for, a value of the wrong type or out of bounds), naming the field;
 * `undefined` when it fits. Pure.
 */
export function checkElicitationContent(
  content: Record<string, unknown>,
  requestedSchema: unknown,
): string | undefined {
  const schema = asRecord(requestedSchema);
  const properties = asRecord(schema?.properties);
  if (!schema || !properties) return 'the requested schema is not an object of fields';
  const required = Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [];
  const missing = required.find((name) => !Object.hasOwn(content, name));
  if (missing !== undefined) return `field ${missing} is required`;
  return checkElicitationFields(content, properties);
}

/** The first way `content` breaks the requested fields, or `undefined` when it fits. */
export function checkElicitationFields(
  content: Record<string, unknown>,
  properties: Record<string, unknown>,
): string | undefined {
  for (const [name, value] of Object.entries(content)) {
    const field = Object.hasOwn(properties, name) ? asRecord(properties[name]) : undefined;
    if (!field) return `field ${name} was not asked for`;
    const problem = checkValue(value, field);
    if (problem) return `field ${name} ${problem}`;
  }
  return undefined;
}

const formats: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+$/,
  uri: /^[a-z][a-z0-9+.-]*:\S*$/i,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
};

function checkValue(value: unknown, field: Record<string, unknown>): string | undefined {
  const allowed = allowedValues(field);
  switch (field.type) {
    case 'string': {
      if (typeof value !== 'string') return 'must be a string';
      if (allowed && !allowed.includes(value)) return 'is not one of the allowed values';
      if (typeof field.minLength === 'number' && value.length < field.minLength) return 'is too short';
      if (typeof field.maxLength === 'number' && value.length > field.maxLength) return 'is too long';
      // Own keys only: a server may send any text as `format`, `constructor` included.
      const format =
        typeof field.format === 'string' && Object.hasOwn(formats, field.format) ? formats[field.format] : undefined;
      if (format && !format.test(value)) return `is not a valid ${String(field.format)}`;
      return undefined;
    }
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (field.type === 'integer' && !Number.isInteger(value)) return 'must be an integer';
      if (typeof field.minimum === 'number' && value < field.minimum) return 'is below its minimum';
      if (typeof field.maximum === 'number' && value > field.maximum) return 'is above its maximum';
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'array': {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) return 'must be a list of strings';
      const items = allowedValues(asRecord(field.items) ?? {});
      if (items && value.some((item) => !items.includes(item as string))) return 'holds a value not allowed';
      if (typeof field.minItems === 'number' && value.length < field.minItems) return 'has too few items';
      if (typeof field.maxItems === 'number' && value.length > field.maxItems) return 'has too many items';
      return undefined;
    }
    default:
      return 'has a type agentq does not fill';
  }
}

/** `enum`, or the `const`s of `oneOf`/`anyOf` (titled enums), when the field restricts its values. */
function allowedValues(field: Record<string, unknown>): unknown[] | undefined {
  if (Array.isArray(field.enum)) return field.enum;
  const options = Array.isArray(field.oneOf) ? field.oneOf : Array.isArray(field.anyOf) ? field.anyOf : undefined;
  return options?.map((option) => asRecord(option)?.const);
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
