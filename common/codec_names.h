/* The codecs' value names (codec_names.c), indexed by value: the one table
 * behind ebb_codec_name_str and its kin, and behind the configuration's
 * keys (config/config_keys.c: tier.disk.compression, codec, shuffle,
 * element), which sit above storage. */
#ifndef EBB_COMMON_CODEC_NAMES_H
#define EBB_COMMON_CODEC_NAMES_H

#include "ebb/codec.h"

extern const char *const ebb_codec_mode_names[EBB_COMPRESSION_COUNT];
extern const char *const ebb_codec_names[EBB_CODEC_COUNT];
extern const char *const ebb_codec_shuffle_names[EBB_SHUFFLE_COUNT];
extern const char *const ebb_codec_element_names[EBB_ELEMENT_COUNT];

#endif
