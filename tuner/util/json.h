/*
 * json.h: writing one JSON document (report, query and bench's --format
 * json): a nesting writer that places the commas, strings escaped per RFC
 * 8259, numbers that are never NaN or infinite (those are null), and the
 * command line that produced the document.
 */
#ifndef GT_JSON_H
#define GT_JSON_H

#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *out;
	int depth;
	int count[JSON_MAX_DEPTH];      /* members written at each level */
	int after_key;                  /* a key was written: the value follows */
};

void json_init(struct json *j, FILE *out);
void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
/* An object member's key; the next value call writes its value. */
void json_key(struct json *j, const char *key);
/* Values: a NULL string is null, as is a non-finite number. */
void json_string(struct json *j, const char *s);
void json_number(struct json *j, double v);
void json_int(struct json *j, long long v);
void json_null(struct json *j);
/* A number's JSON text as given (s must be one: json_number_text checks). */
void json_raw(struct json *j, const char *s);
/* Whether s is exactly a JSON number ("-1.25e3", not "nan", "0x1f", "1."). */
int json_number_text(const char *s);
/* Write s as a JSON string literal (quotes included). */
void json_put_string(FILE *out, const char *s);

/* The command line of this process, for the documents to say what made
 * them: main() records it; a key "command" with the words as an array. */
void command_line_set(int argc, char **argv);
void json_command(struct json *j);

#endif
