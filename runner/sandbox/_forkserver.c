/* The zygote's fork loop, in C: between forks the zygote runs no Python at all.
 *
 * Why: every page the zygote writes after a fork is shared with the spare it just made, so each
 * write costs the zygote a copy-on-write fault (and splits the huge page the write falls in, for
 * good: from then on every fork copies 512 page-table entries for that 2 MB and every spare's
 * exit tears them down). The loop in Python wrote ~155 pages per fork (reference counts, its
 * frames, the objects it made), spread over the heap; this loop writes its own stack and the
 * small tables below. docs/benchmarks.md (the twelfth pass) has the figures.
 *
 * The wire protocol is runner.sandbox.zygote's (its docstring): host -> zygote, one SOCK_SEQPACKET
 * message per spare, "<id>\n<json>" with one descriptor (the spare's end of its link);
 * zygote -> host {"op": "exit", "id", "status"} when a spare's process ends, and
 * {"op": "refused", "id"} for a message it cannot serve. The JSON is the spare's to read.
 *
 * serve_forks(control_fd) returns (json bytes, link fd) in each child, after the interpreter's
 * after-fork work (PyOS_AfterFork_Child); in the zygote it returns None when the host goes away,
 * and raises OSError on an error it cannot go on from.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_MESSAGE (64 * 1024)
#define MAX_ID 64
#define MAX_CHILDREN 1024

struct child {
    int pidfd;
    pid_t pid;
    char id[MAX_ID + 1];
};

static struct child children[MAX_CHILDREN];
static int n_children;
static struct pollfd polls[MAX_CHILDREN + 1];
static char message[MAX_MESSAGE + 1];

static int valid_id(const char *id, size_t n) {
    if (n == 0 || n > MAX_ID) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_'))
            return 0;
    }
    return 1;
}

/* One JSON object to the host; the id is checked to need no escaping (valid_id). */
static int notify(int control, const char *op, const char *id, int with_status, int status) {
    char out[160];
    int n;
    if (id == NULL)
        n = snprintf(out, sizeof out, "{\"op\": \"%s\", \"id\": null}", op);
    else if (with_status)
        n = snprintf(out, sizeof out, "{\"op\": \"%s\", \"id\": \"%s\", \"status\": %d}", op, id, status);
    else
        n = snprintf(out, sizeof out, "{\"op\": \"%s\", \"id\": \"%s\"}", op, id);
    for (;;) {
        ssize_t sent = send(control, out, (size_t)n, MSG_NOSIGNAL);
        if (sent >= 0) return 0;
        if (errno != EINTR) return -1;
    }
}

/* What os.waitstatus_to_exitcode gives: the exit code, or minus the signal's number. */
static int exit_code(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return -WTERMSIG(status);
    return -1;
}

static int reap(int control, int index) {
    struct child *c = &children[index];
    int status = 0;
    pid_t got;
    do {
        got = waitpid(c->pid, &status, 0);
    } while (got < 0 && errno == EINTR);
    close(c->pidfd);
    int code = got < 0 ? -1 : exit_code(status);
    int rc = notify(control, "exit", c->id, 1, code);
    children[index] = children[--n_children];
    return rc;
}

/* Receive one message and its descriptors. Returns the message's length, 0 when the host went
 * away, -1 on an error (errno set); *fd is the one descriptor or -1, *n_fds how many came. */
static ssize_t receive(int control, int *fd, int *n_fds) {
    char space[CMSG_SPACE(sizeof(int) * 4)];
    struct iovec iov = {message, MAX_MESSAGE};
    struct msghdr header = {0};
    header.msg_iov = &iov;
    header.msg_iovlen = 1;
    header.msg_control = space;
    header.msg_controllen = sizeof space;
    ssize_t n;
    do {
        n = recvmsg(control, &header, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    *fd = -1;
    *n_fds = 0;
    if (n < 0) return -1;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&header); cm != NULL; cm = CMSG_NXTHDR(&header, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int *fds = (int *)CMSG_DATA(cm);
        for (int i = 0; i < count; i++) {
            if (*n_fds == 0)
                *fd = fds[i];
            else
                close(fds[i]);
            (*n_fds)++;
        }
    }
    if (header.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
        if (*fd >= 0) close(*fd);
        *fd = -1;
        *n_fds = 2; /* refused below, as a message with the wrong descriptors */
    }
    message[n] = '\0';
    return n;
}

static PyObject *serve_forks(PyObject *self, PyObject *args) {
    int control;
    if (!PyArg_ParseTuple(args, "i", &control)) return NULL;
    for (;;) {
        polls[0].fd = control;
        polls[0].events = POLLIN;
        for (int i = 0; i < n_children; i++) {
            polls[i + 1].fd = children[i].pidfd;
            polls[i + 1].events = POLLIN;
            polls[i + 1].revents = 0;
        }
        int ready = poll(polls, (nfds_t)(n_children + 1), -1);
        if (ready < 0) {
            if (errno == EINTR) {
                if (PyErr_CheckSignals() < 0) return NULL;
                continue;
            }
            return PyErr_SetFromErrno(PyExc_OSError);
        }
        /* Exits first, from the end, so that removing one does not move one not yet looked at. */
        for (int i = n_children - 1; i >= 0; i--) {
            if (polls[i + 1].revents && reap(control, i) < 0) return PyErr_SetFromErrno(PyExc_OSError);
        }
        if (!polls[0].revents) continue;
        int link = -1, n_fds = 0;
        ssize_t n = receive(control, &link, &n_fds);
        if (n < 0) return PyErr_SetFromErrno(PyExc_OSError);
        if (n == 0) Py_RETURN_NONE; /* the host went away; bubblewrap takes every child down */
        char *newline = memchr(message, '\n', (size_t)n);
        size_t id_len = newline ? (size_t)(newline - message) : 0;
        int ok = newline != NULL && valid_id(message, id_len) && n_fds == 1 && n_children < MAX_CHILDREN;
        char id[MAX_ID + 1];
        if (newline != NULL && valid_id(message, id_len)) {
            memcpy(id, message, id_len);
            id[id_len] = '\0';
        }
        if (!ok) {
            if (link >= 0) close(link);
            int known = newline != NULL && valid_id(message, id_len);
            if (notify(control, "refused", known ? id : NULL, 0, 0) < 0) return PyErr_SetFromErrno(PyExc_OSError);
            continue;
        }
        pid_t pid = fork();
        if (pid < 0) {
            close(link);
            if (notify(control, "refused", id, 0, 0) < 0) return PyErr_SetFromErrno(PyExc_OSError);
            continue;
        }
        if (pid == 0) {
            PyOS_AfterFork_Child();
            for (int i = 0; i < n_children; i++) close(children[i].pidfd);
            n_children = 0;
            close(control);
            const char *body = newline + 1;
            return Py_BuildValue("(y#i)", body, (Py_ssize_t)(message + n - body), link);
        }
        close(link);
        int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        if (pidfd < 0) return PyErr_SetFromErrno(PyExc_OSError);
        children[n_children].pidfd = pidfd;
        children[n_children].pid = pid;
        memcpy(children[n_children].id, id, id_len + 1);
        n_children++;
    }
}

static PyMethodDef methods[] = {
    {"serve_forks", serve_forks, METH_VARARGS,
     "serve_forks(control_fd) -> (json, link_fd) in each forked child; None in the zygote when the host goes away."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "runner.sandbox._forkserver", NULL, -1, methods};

PyMODINIT_FUNC PyInit__forkserver(void) { return PyModule_Create(&module); }
