/* placeholder */ typedef int ebb_placeholder_schedule;
