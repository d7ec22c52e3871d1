// The coordinator's discovery registry (airlift's dynamic announcements): workers PUT what they are every
// few seconds; an entry not renewed within maxAge (30 s) is dropped and its node handed to the failure
// detector as gone. It also remembers what the failure detector does not: each worker's HTTP base and
// whether it holds the memory catalog, which the remote engine routes by.
import { Ajv2020 } from 'ajv/dist/2020.js';
import schema from '../../schemas/announcement-request.schema.json' with { type: 'json' };
import { VivaceError } from '../protocol/vivace-error.js';

/** The part of the coordinator discovery drives (lib/actors/coordinator.ts). */
export interface NodeRegistry {
  announceNode(nodeId: string, uri: string): void;
  forgetNode(nodeId: string): void;
}

export interface DiscoveredNode {
  nodeId: string;
  /** HTTP base, e.g. http://127.0.0.1:43121 (no trailing slash) */
  uri: string;
  /** announces `memory: "true"`: holds the memory catalog */
  memory: boolean;
  /** epoch ms of the first announcement of this entry (the memory catalog goes to the oldest) */
  firstSeen: number;
  /**
   * The announced service's id: airlift's announcer makes it afresh in each process (a random UUID), so a
   * worker restarted on the same address announces another one. Absent: the announcement had none.
   */
  instance?: string;
  lastSeen: number;
}

export interface DiscoveryOptions {
  nodes: NodeRegistry;
  environment: string;
  /** This coordinator's own node id: never listed as a worker. */
  selfNodeId?: string;
  /**
   * Checks an announcement's X-Trino-Internal-Bearer, rejecting (401) when it is not good
   * (cluster-auth.ts verifyInternalBearer). Absent: discovery is open (no shared secret configured).
   */
  authorize?: (bearer: string | undefined) => Promise<unknown>;
  now?: () => number;
  /** airlift's discovery.max-age */
  maxAgeMs?: number;
  /** How often expired entries are swept (0: never by itself; call sweep()). */
  sweepIntervalMs?: number;
  /** Announced nodes held at most; a new node past it is refused (a flood cannot grow memory). */
  maxNodes?: number;
}

export const DISCOVERY_DEFAULTS = { maxAgeMs: 30_000, sweepIntervalMs: 1_000, maxNodes: 10_000 } as const;

// strictRequired off as in the other schemas: `required` sits beside nested properties.
const validate = new Ajv2020({ strict: true, strictRequired: false, allErrors: false }).compile(schema);

/** A node id in the path: what airlift's node ids are made of, bounded. */
function checkNodeId(nodeId: string): void {
  if (nodeId.length === 0 || nodeId.length > 256) throw badRequest('Node id must be 1 to 256 characters');
  for (let i = 0; i < nodeId.length; i++) {
    const c = nodeId.charCodeAt(i);
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 46 || c === 95;
    if (!ok) throw badRequest(`Invalid node id: only letters, digits, '-', '_' and '.' are allowed`);
  }
}

const badRequest = (message: string) => new VivaceError('GENERIC_USER_ERROR', message, { httpStatus: 400 });

interface ServiceAnnouncement {
  id?: string;
  type: string;
  properties: Record<string, string>;
}

interface Announcement {
  environment: string;
  nodeId?: string;
  services: ServiceAnnouncement[];
}

/** The service a Trino/Presto node announces itself by. */
const NODE_SERVICE_TYPES: ReadonlySet<string> = new Set(['trino', 'presto']);

/** `http://host:port` of an announced address: absolute, http(s), no credentials, query or path. */
export function announcedHttpBase(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badRequest(`Announced address is not a URL: ${text.slice(0, 200)}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') throw badRequest('Announced address must be an http or https URL');
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '' || (url.pathname !== '/' && url.pathname !== '')) {
    throw badRequest('Announced address must be scheme://host:port only');
  }
  return `${url.protocol}//${url.host}`;
}

export class Discovery {
  private readonly entries = new Map<string, DiscoveredNode>();
  private readonly now: () => number;
  private readonly maxAgeMs: number;
  private readonly maxNodes: number;
  private readonly timer?: NodeJS.Timeout;

  constructor(private readonly options: DiscoveryOptions) {
    this.now = options.now ?? Date.now;
    this.maxAgeMs = options.maxAgeMs ?? DISCOVERY_DEFAULTS.maxAgeMs;
    this.maxNodes = options.maxNodes ?? DISCOVERY_DEFAULTS.maxNodes;
    const every = options.sweepIntervalMs ?? DISCOVERY_DEFAULTS.sweepIntervalMs;
    if (every > 0) {
      this.timer = setInterval(() => this.sweep(), every);
      this.timer.unref(); // discovery alone never keeps the process up
    }
  }

  /** Validates and records an announcement (PUT, its JSON text); throws a 400/401 VivaceError for a bad one. */
  async announce(nodeId: string, text: string, bearer: string | undefined): Promise<void> {
    // The bearer first: a stranger learns nothing about what a valid body looks like.
    await this.options.authorize?.(bearer);
    checkNodeId(nodeId);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw badRequest('Invalid announcement: the body is not JSON');
    }
    if (!validate(body)) {
      const first = validate.errors?.[0];
      throw badRequest(`Invalid announcement: ${first ? `${first.instancePath || '/'} ${first.message ?? 'is invalid'}` : 'bad body'}`);
    }
    const announcement = body as unknown as Announcement; // the schema checked its shape
    if (announcement.environment !== this.options.environment) {
      throw badRequest(`Environment mismatch: this coordinator runs in '${this.options.environment}', the announcement is for '${announcement.environment.slice(0, 256)}'`);
    }
    if (announcement.nodeId !== undefined && announcement.nodeId !== nodeId) throw badRequest('Announcement nodeId does not match the path');
    const service = announcement.services.find((s) => NODE_SERVICE_TYPES.has(s.type));
    if (!service) throw badRequest('Announcement has no trino or presto service');
    const address = service.properties.http ?? service.properties.https;
    if (address === undefined) throw badRequest('Announced service has no http address');
    const uri = announcedHttpBase(address);
    // The coordinator does not list itself (Trino announces its coordinator too).
    if (nodeId === this.options.selfNodeId || service.properties.coordinator === 'true') return;
    const known = this.entries.get(nodeId);
    if (!known && this.entries.size >= this.maxNodes) {
      throw new VivaceError('GENERIC_INSUFFICIENT_RESOURCES', `Discovery holds ${this.maxNodes} nodes already`, { httpStatus: 429 });
    }
    const now = this.now();
    const memory = service.properties.memory === 'true';
    const entry: DiscoveredNode = { nodeId, uri, memory, firstSeen: known && known.uri === uri ? known.firstSeen : now, lastSeen: now };
    if (service.id !== undefined) entry.instance = service.id;
    this.entries.set(nodeId, entry);
    this.options.nodes.announceNode(nodeId, uri);
  }

  /** The worker left (DELETE): forgotten at once. */
  async remove(nodeId: string, bearer: string | undefined): Promise<void> {
    await this.options.authorize?.(bearer);
    checkNodeId(nodeId);
    if (this.entries.delete(nodeId)) this.options.nodes.forgetNode(nodeId);
  }

  /** Drops entries not renewed within maxAge. */
  sweep(): void {
    const cutoff = this.now() - this.maxAgeMs;
    for (const [nodeId, entry] of this.entries) {
      if (entry.lastSeen <= cutoff) {
        this.entries.delete(nodeId);
        this.options.nodes.forgetNode(nodeId);
      }
    }
  }

  /** Announced nodes, oldest first. */
  list(): DiscoveredNode[] {
    return [...this.entries.values()];
  }

  get(nodeId: string): DiscoveredNode | undefined {
    return this.entries.get(nodeId);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

// One discovery per coordinator, found by the routes (lib/http/announcement.routes.ts) and the remote
// engine without threading it through every constructor.
const registries = new WeakMap<object, Discovery>();

/** Installs `discovery` for `owner` (a coordinator); specs install one with their own clock. */
export function attachDiscovery(owner: object, discovery: Discovery): Discovery {
  registries.get(owner)?.stop();
  registries.set(owner, discovery);
  return discovery;
}

/** The discovery of `owner`, created with `create` on first use. */
export function discoveryOf(owner: object, create: () => Discovery): Discovery {
  return registries.get(owner) ?? attachDiscovery(owner, create());
}
