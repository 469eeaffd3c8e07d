/**
 * Generates the classic-BPF seccomp program bwrap loads (`--seccomp FD`): an
 * array of 8-byte `sock_filter` instructions. Pure JS, from the committed
 * table in syscalls.ts; no npm package compiles seccomp filters.
 *
 * Program: wrong architecture → kill; x32 numbers → EPERM; each denied
 * syscall → EPERM; clone with a namespace flag → EPERM; clone3 → ENOSYS (its
 * flags sit in memory the filter cannot read, and libc falls back to clone);
 * socket(AF_UNIX) → EPERM when asked; everything else → allow.
 */
import { AF_UNIX, AUDIT_ARCH, CLONE_NAMESPACE_FLAGS, DENIED_SYSCALLS, SYSCALL_NUMBERS, X32_SYSCALL_BIT, type SandboxArch } from './syscalls.js';

// linux/filter.h and linux/seccomp.h
const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JGE_K = 0x35;
const BPF_JMP_JSET_K = 0x45;
const BPF_RET_K = 0x06;
const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
// struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (little-endian low words)
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0 = 16;

interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

const load = (offset: number): Instruction => ({ code: BPF_LD_W_ABS, jt: 0, jf: 0, k: offset });
const ret = (value: number): Instruction => ({ code: BPF_RET_K, jt: 0, jf: 0, k: value >>> 0 });
const jump = (code: number, k: number, jt: number, jf: number): Instruction => ({ code, jt, jf, k: k >>> 0 });

export interface SeccompOptions {
  arch: SandboxArch;
  /** Deny socket(AF_UNIX): nothing inside may connect to a host-side Unix socket (the gateway's, docker's, ...). */
  denyUnixSockets: boolean;
}

/** The BPF program as bytes, ready to hand to bwrap on a file descriptor. */
export function seccompProgram(options: SeccompOptions): Buffer {
  const numbers = SYSCALL_NUMBERS[options.arch];
  const program: Instruction[] = [];
  program.push(load(OFFSET_ARCH));
  program.push(jump(BPF_JMP_JEQ_K, AUDIT_ARCH[options.arch], 1, 0));
  program.push(ret(SECCOMP_RET_KILL_PROCESS));
  program.push(load(OFFSET_NR));
  if (options.arch === 'x64') {
    program.push(jump(BPF_JMP_JGE_K, X32_SYSCALL_BIT, 0, 1));
    program.push(ret(SECCOMP_RET_ERRNO | EPERM));
  }
  for (const name of DENIED_SYSCALLS) {
    program.push(jump(BPF_JMP_JEQ_K, numbers[name], 0, 1));
    program.push(ret(SECCOMP_RET_ERRNO | EPERM));
  }
  program.push(jump(BPF_JMP_JEQ_K, numbers.clone3, 0, 1));
  program.push(ret(SECCOMP_RET_ERRNO | ENOSYS));
  // clone: look at its flags (argument 0 on both architectures), then restore nr for what follows.
  program.push(jump(BPF_JMP_JEQ_K, numbers.clone, 0, 4));
  program.push(load(OFFSET_ARG0));
  program.push(jump(BPF_JMP_JSET_K, CLONE_NAMESPACE_FLAGS, 0, 1));
  program.push(ret(SECCOMP_RET_ERRNO | EPERM));
  program.push(ret(SECCOMP_RET_ALLOW));
  if (options.denyUnixSockets) {
    program.push(jump(BPF_JMP_JEQ_K, numbers.socket, 0, 4));
    program.push(load(OFFSET_ARG0));
    program.push(jump(BPF_JMP_JEQ_K, AF_UNIX, 0, 1));
    program.push(ret(SECCOMP_RET_ERRNO | EPERM));
    program.push(ret(SECCOMP_RET_ALLOW));
  }
  program.push(ret(SECCOMP_RET_ALLOW));
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    bytes.writeUInt16LE(instruction.code, index * 8);
    bytes.writeUInt8(instruction.jt, index * 8 + 2);
    bytes.writeUInt8(instruction.jf, index * 8 + 3);
    bytes.writeUInt32LE(instruction.k, index * 8 + 4);
  });
  return bytes;
}

/** The architecture of this Node process in the table's terms, or undefined when the table has none for it. */
export function sandboxArch(arch: string = process.arch): SandboxArch | undefined {
  return arch === 'x64' || arch === 'arm64' ? arch : undefined;
}
