// What no route answered: OPTIONS lists the path's methods, a known path asked with another method is a
// 405 with Allow, a method no route implements is a 501; the rest is errorMiddleware's 404.
import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { VivaceError } from '../protocol/vivace-error.js';

interface MethodLayer {
  methods: readonly string[];
}

function methodsOf(layers: readonly MethodLayer[]): string[] {
  const methods = new Set<string>();
  for (const layer of layers) for (const method of layer.methods) methods.add(method);
  return [...methods];
}

/** Every method some route answers, and OPTIONS. */
export function implementedMethods(router: Router): string[] {
  return methodsOf([...(router.stack as MethodLayer[]), { methods: ['OPTIONS'] }]);
}

/** Registered after the router's routes. */
export function allowedMethods(router: Router): (ctx: Context, next: Next) => Promise<void> {
  const implemented = new Set(implementedMethods(router));
  // next().then rather than an async function: no extra async frame on every request.
  return (ctx, next) => next().then(() => {
    if (ctx.status !== 404 || ctx.body != null) return;
    const allowed = methodsOf((ctx.matched ?? []) as MethodLayer[]);
    if (allowed.length > 0) {
      const allow = allowed.join(', ');
      ctx.set('Allow', allow);
      if (ctx.method === 'OPTIONS') {
        ctx.status = 200;
        ctx.body = '';
        return;
      }
      throw new VivaceError('NOT_SUPPORTED', `Method ${ctx.method} is not allowed on ${ctx.path} (allowed: ${allow})`, { httpStatus: 405 });
    }
    if (!implemented.has(ctx.method)) {
      throw new VivaceError('NOT_SUPPORTED', `Method ${ctx.method} is not implemented by this server`, { httpStatus: 501 });
    }
  });
}
