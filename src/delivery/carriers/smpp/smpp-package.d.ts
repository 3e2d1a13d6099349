// The part of the `smpp` package (0.5, plain CommonJS without types) that we use: its table of
// command_status names, and the server and codec of the test SMSC (pdu.ts is our own codec).
declare module "smpp" {
  import type { EventEmitter } from "node:events";
  import type { Server as NetServer, Socket } from "node:net";

  /** A decoded PDU: the header, then each mandatory field and known TLV by name, unknown TLVs by numeric tag. */
  export interface Pdu {
    command: string;
    command_id: number;
    command_status: number;
    sequence_number: number;
    [field: string]: unknown;
    isResponse(): boolean;
    response(fields?: Record<string, unknown>): Pdu;
    /** Encodes the PDU; throws a RangeError for a short_message over 255 bytes. */
    toBuffer(): Buffer;
  }

  /** A PDU to send, or (given the bytes of a whole PDU) one read. */
  export const PDU: new (command: string | Buffer, fields?: Record<string, unknown>) => Pdu;

  export interface Session extends EventEmitter {
    socket: Socket;
    server?: Server;
    /** Writes the PDU (numbering it when it has no sequence_number); false when the socket is not writable. */
    send(pdu: Pdu, onResponse?: (pdu: Pdu) => void, onSent?: (pdu: Pdu) => void): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
  }

  export interface Server extends NetServer {
    sessions: Session[];
  }

  export interface TlvType {
    read(buffer: Buffer, offset: number, length: number): unknown;
    write(value: unknown, buffer: Buffer, offset: number): void;
    size(value: unknown): number;
  }

  export function connect(options: { host: string; port: number }, onConnect?: () => void): Session;
  export function createServer(options: Record<string, unknown>, onSession?: (session: Session) => void): Server;
  export function addTLV(name: string, definition: { id: number; type: TlvType }): void;

  export const tlvs: Record<string, { id: number; type: TlvType }>;
  export const tlvsById: Record<number, { tag: string; id: number; type: TlvType }>;
  export const types: { tlv: { string: TlvType; cstring: TlvType; buffer: TlvType; int8: TlvType } };
  export const errors: Record<string, number>;
}
