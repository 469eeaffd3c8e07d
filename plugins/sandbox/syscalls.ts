/**
 * The syscalls the sandbox's seccomp filter denies, with their numbers per
 * architecture. Committed, not looked up at run time: the numbers come from
 * the kernel headers (x86_64: asm/unistd_64.h; aarch64: asm-generic/unistd.h)
 * and never change for an architecture. An architecture missing here cannot
 * be filtered, so the sandbox refuses to start on it (fail closed).
 */

/** Audit architecture ids (linux/audit.h), as seccomp_data.arch reports them. */
export const AUDIT_ARCH = { x64: 0xc000003e, arm64: 0xc00000b7 } as const;

export type SandboxArch = keyof typeof AUDIT_ARCH;

/** Denied outright (EPERM): debugging other processes, mounts, keyrings, BPF, perf, namespaces, modules, kexec, io_uring (it bypasses this filter). */
export const DENIED_SYSCALLS = [
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'mount_setattr',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'move_mount',
  'open_tree',
  'open_by_handle_at',
  'keyctl',
  'add_key',
  'request_key',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'unshare',
  'setns',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'reboot',
  'swapon',
  'swapoff',
  'acct',
  'quotactl',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
] as const;

export type DeniedSyscall = (typeof DENIED_SYSCALLS)[number];

/** Syscalls with an argument check or a special answer. */
type Special = 'clone' | 'clone3' | 'socket';

export const SYSCALL_NUMBERS: Record<SandboxArch, Record<DeniedSyscall | Special, number>> = {
  x64: {
    ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, mount: 165, umount2: 166, pivot_root: 155, chroot: 161,
    mount_setattr: 442, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, move_mount: 429, open_tree: 428,
    open_by_handle_at: 304, keyctl: 250, add_key: 248, request_key: 249, bpf: 321, perf_event_open: 298, userfaultfd: 323,
    unshare: 272, setns: 308, kexec_load: 246, kexec_file_load: 320, init_module: 175, finit_module: 313, delete_module: 176,
    reboot: 169, swapon: 167, swapoff: 168, acct: 163, quotactl: 179, io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427,
    clone: 56, clone3: 435, socket: 41,
  },
  arm64: {
    ptrace: 117, process_vm_readv: 270, process_vm_writev: 271, mount: 40, umount2: 39, pivot_root: 41, chroot: 51,
    mount_setattr: 442, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, move_mount: 429, open_tree: 428,
    open_by_handle_at: 265, keyctl: 219, add_key: 217, request_key: 218, bpf: 280, perf_event_open: 241, userfaultfd: 282,
    unshare: 97, setns: 268, kexec_load: 104, kexec_file_load: 294, init_module: 105, finit_module: 273, delete_module: 106,
    reboot: 142, swapon: 224, swapoff: 225, acct: 89, quotactl: 60, io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427,
    clone: 220, clone3: 435, socket: 198,
  },
};

/** clone() flags that create namespaces (linux/sched.h); clone with any of them is denied. */
export const CLONE_NAMESPACE_FLAGS =
  0x00020000 /* NEWNS */ | 0x02000000 /* NEWCGROUP */ | 0x04000000 /* NEWUTS */ | 0x08000000 /* NEWIPC */ | 0x10000000 /* NEWUSER */ | 0x20000000 /* NEWPID */ | 0x40000000; /* NEWNET */

/** x32 syscalls on x86_64 carry this bit; the filter refuses them all (another numbering would slip through). */
export const X32_SYSCALL_BIT = 0x40000000;

/** socket() domain of Unix sockets: denied where nothing inside needs to reach a host-side socket. */
export const AF_UNIX = 1;
