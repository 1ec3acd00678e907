/*
 * A test-only stand-in for Windows' bcryptprimitives.dll, for the Wine smoke test
 * (scripts/wine-smoke.sh); never shipped.
 *
 * Rust's std on Windows imports ProcessPrng from bcryptprimitives.dll (Windows 10 and later).
 * Wine 8.0, Debian 12's, has no such DLL, so every Rust program (forkhost.exe, the Windows build of
 * Codex) exits before main with STATUS_DLL_NOT_FOUND. This DLL exports ProcessPrng and fills the
 * buffer from advapi32's RtlGenRandom (SystemFunction036), which Wine has.
 *
 *   x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll bcryptprimitives.c \
 *     -Wl,--kill-at -ladvapi32
 */
#include <windows.h>
#include <ntsecapi.h>

/* As documented: always returns TRUE (Windows' own never fails once loaded). */
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!RtlGenRandom(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
    (void)instance;
    (void)reason;
    (void)reserved;
    return TRUE;
}
