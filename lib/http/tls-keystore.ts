// The HTTPS certificate and key, read from PEM files at startup (http-server.https.keystore.path holds
// the certificate chain and, unless http-server.https.key-path names another file, the private key, as
// Trino's PEM keystore does). Every problem is a startup error naming the file, never its contents.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { CoordinatorConfig } from '../config.js';
import { VivaceError } from '../protocol/vivace-error.js';

export interface TlsMaterial {
  /** the certificate chain, leaf first */
  cert: string;
  key: string;
}

interface PemBlock {
  label: string;
  text: string;
}

const MAX_PEM_BYTES = 1 << 20;

function invalid(message: string): VivaceError {
  return new VivaceError('CONFIGURATION_INVALID', message);
}

function readPem(property: string, path: string): PemBlock[] {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_PEM_BYTES) throw invalid(`${property} ${path}: larger than 1 MB`);
    text = bytes.toString('utf8');
  } catch (err) {
    if (err instanceof VivaceError) throw err;
    const code = (err as { code?: unknown }).code;
    throw new VivaceError('CONFIGURATION_UNAVAILABLE', `${property}: cannot read ${path}${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  return pemBlocks(text);
}

/** `-----BEGIN X-----` ... `-----END X-----` blocks, found by hand (no regular expression over file text). */
export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  let from = 0;
  for (;;) {
    const begin = text.indexOf('-----BEGIN ', from);
    if (begin < 0) return blocks;
    const labelEnd = text.indexOf('-----', begin + 11);
    if (labelEnd < 0) return blocks;
    const label = text.slice(begin + 11, labelEnd);
    const endMarker = `-----END ${label}-----`;
    const end = text.indexOf(endMarker, labelEnd + 5);
    if (end < 0) return blocks;
    blocks.push({ label, text: `${text.slice(begin, end + endMarker.length)}\n` });
    from = end + endMarker.length;
  }
}

const KEY_LABELS = new Set(['PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY']);

/** Reads and checks the PEM files of an HTTPS configuration; throws a startup error for anything amiss. */
export function loadTlsMaterial(config: CoordinatorConfig): TlsMaterial {
  const keystore = config.httpsKeystorePath;
  if (!keystore) throw invalid('http-server.https.enabled=true needs http-server.https.keystore.path (a PEM file with the certificate)');
  const certBlocks = readPem('http-server.https.keystore.path', keystore);
  const certs = certBlocks.filter((b) => b.label === 'CERTIFICATE');
  if (certs.length === 0) throw invalid(`http-server.https.keystore.path ${keystore}: no PEM CERTIFICATE in the file`);

  const keyPath = config.httpsKeyPath ?? keystore;
  const keyProperty = config.httpsKeyPath ? 'http-server.https.key-path' : 'http-server.https.keystore.path';
  const keyBlocks = config.httpsKeyPath ? readPem(keyProperty, keyPath) : certBlocks;
  if (keyBlocks.some((b) => b.label === 'ENCRYPTED PRIVATE KEY')) {
    throw invalid(`${keyProperty} ${keyPath}: the private key is encrypted; give it unencrypted (a keystore password is not read)`);
  }
  const keys = keyBlocks.filter((b) => KEY_LABELS.has(b.label));
  if (keys.length === 0) {
    const hint = config.httpsKeyPath ? '' : ' (or name a key file with http-server.https.key-path)';
    throw invalid(`${keyProperty} ${keyPath}: no PEM private key in the file${hint}`);
  }
  if (keys.length > 1) throw invalid(`${keyProperty} ${keyPath}: more than one private key in the file`);

  let key: KeyObject;
  try {
    key = createPrivateKey(keys[0].text);
  } catch {
    throw invalid(`${keyProperty} ${keyPath}: the private key cannot be read`);
  }
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certs[0].text);
  } catch {
    throw invalid(`http-server.https.keystore.path ${keystore}: the certificate cannot be read`);
  }
  if (!belongs(leaf, key)) throw invalid(`${keyProperty} ${keyPath}: the private key does not belong to the certificate in ${keystore}`);
  return { cert: certs.map((c) => c.text).join(''), key: keys[0].text };
}

function belongs(certificate: X509Certificate, key: KeyObject): boolean {
  try {
    return certificate.checkPrivateKey(key);
  } catch {
    return false; // a key of another type than the certificate's
  }
}
