/* budcore — symbol export and C linkage macros shared by the C and C++ headers. */
#ifndef BUDCORE_EXPORT_H
#define BUDCORE_EXPORT_H

/* Define BUDCORE_STATIC when linking the static library so nothing is imported. */
#if defined(BUDCORE_STATIC)
#define BUDCORE_API
#elif defined(_WIN32)
#if defined(BUDCORE_BUILDING)
#define BUDCORE_API __declspec(dllexport)
#else
#define BUDCORE_API __declspec(dllimport)
#endif
#else
#define BUDCORE_API __attribute__((visibility("default")))
#endif

/* For the library's own private types (the Impl behind a public class): never exported from
 * the shared library, so its symbol list is the public API. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#define BUDCORE_HIDDEN __attribute__((visibility("hidden")))
#else
#define BUDCORE_HIDDEN
#endif

#if defined(__GNUC__) || defined(__clang__)
#define BUDCORE_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define BUDCORE_DEPRECATED(msg)
#endif

#ifdef __cplusplus
#define BUDCORE_BEGIN_DECL extern "C" {
#define BUDCORE_END_DECL }
#else
#define BUDCORE_BEGIN_DECL
#define BUDCORE_END_DECL
#endif

#endif
